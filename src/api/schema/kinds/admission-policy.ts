import { atomic, enumOf, int64, labelSelector, listMap, obj, ref, req, str, strings, withDefault, type SchemaNode } from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * admissionregistration.<apiDomain> v1, v1beta1 and v1alpha1: ValidatingAdmissionPolicy and its
 * binding (CEL policies, GA in kube 1.30). The three versions have the same fields and defaults in
 * kube 1.30–1.33 (failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope `*`); v1
 * is served by default, the others only when `--runtime-config` turns them on, as kube does.
 */

/** The versions a policy is declared at (v1 stores the objects). */
export const ADMISSION_POLICY_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;

const NAMED_RULE = obj({
  apiGroups: strings(),
  apiVersions: strings(),
  operations: atomic(enumOf(["*", "CONNECT", "CREATE", "DELETE", "UPDATE"])),
  resourceNames: strings("Names the rule is limited to; empty means all."),
  resources: strings(),
  scope: withDefault(enumOf(["*", "Cluster", "Namespaced"]), "*"),
});

const matchResources = (version: string): SchemaNode =>
  obj({
    excludeResourceRules: atomic(ref(`admissionregistration.${version}.NamedRuleWithOperations`)),
    matchPolicy: withDefault(enumOf(["Equivalent", "Exact"]), "Equivalent"),
    namespaceSelector: withDefault(labelSelector(), {}),
    objectSelector: withDefault(labelSelector(), {}),
    resourceRules: atomic(ref(`admissionregistration.${version}.NamedRuleWithOperations`)),
  });

const policySpec = (version: string): SchemaNode =>
  obj({
    auditAnnotations: atomic(obj({ key: req(str()), valueExpression: req(str()) })),
    failurePolicy: withDefault(enumOf(["Fail", "Ignore"]), "Fail"),
    matchConditions: listMap(obj({ expression: req(str()), name: req(str()) }), ["name"], { patch: true }),
    matchConstraints: ref(`admissionregistration.${version}.MatchResources`),
    paramKind: obj({ apiVersion: str(), kind: str() }),
    validations: atomic(obj({ expression: req(str()), message: str(), messageExpression: str(), reason: str() })),
    variables: atomic(obj({ expression: req(str()), name: req(str()) })),
  });

const POLICY_STATUS = obj({
  conditions: listMap(ref("meta.v1.Condition"), ["type"]),
  observedGeneration: int64(),
  typeChecking: obj({ expressionWarnings: atomic(obj({ fieldRef: req(str()), warning: req(str()) })) }),
});

const bindingSpec = (version: string): SchemaNode =>
  obj({
    matchResources: ref(`admissionregistration.${version}.MatchResources`),
    paramRef: obj({ name: str(), namespace: str(), parameterNotFoundAction: enumOf(["Allow", "Deny"]), selector: labelSelector() }),
    policyName: str(),
    validationActions: { ...strings(), listType: "set", items: enumOf(["Audit", "Deny", "Warn"]) },
  });

function definitionsAt(version: string): Record<string, SchemaNode> {
  return {
    [`admissionregistration.${version}.NamedRuleWithOperations`]: NAMED_RULE,
    [`admissionregistration.${version}.MatchResources`]: matchResources(version),
    [`admissionregistration.${version}.ValidatingAdmissionPolicy`]: resource(
      "ValidatingAdmissionPolicy accepts or rejects objects with CEL expressions, without changing them.",
      { spec: policySpec(version), status: POLICY_STATUS },
    ),
    [`admissionregistration.${version}.ValidatingAdmissionPolicyBinding`]: resource(
      "ValidatingAdmissionPolicyBinding applies a ValidatingAdmissionPolicy to resources, with parameters.",
      { spec: bindingSpec(version) },
    ),
  };
}

export const ADMISSION_POLICY_DEFINITIONS: Readonly<Record<string, SchemaNode>> = Object.assign({}, ...ADMISSION_POLICY_VERSIONS.map(definitionsAt));

export const ADMISSION_POLICY_KINDS: readonly KindDeclaration[] = ADMISSION_POLICY_VERSIONS.flatMap((version) =>
  ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"].map((kind) => ({
    group: "admissionregistration",
    domain: true,
    version,
    kind,
    id: `admissionregistration.${version}.${kind}`,
  })),
);
