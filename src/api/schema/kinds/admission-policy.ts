import { atomic, enumOf, int64, labelSelector, listMap, obj, ref, req, str, strings, withDefault, type SchemaNode } from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * admissionregistration.<apiDomain> v1: ValidatingAdmissionPolicy and its binding (CEL policies,
 * GA in kube 1.30). v1beta1 and v1alpha1 are off by default in kube 1.30 and are not served here.
 * Defaults as kube's: failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope `*`.
 */

const NAMED_RULE = obj({
  apiGroups: strings(),
  apiVersions: strings(),
  operations: atomic(enumOf(["*", "CONNECT", "CREATE", "DELETE", "UPDATE"])),
  resourceNames: strings("Names the rule is limited to; empty means all."),
  resources: strings(),
  scope: withDefault(enumOf(["*", "Cluster", "Namespaced"]), "*"),
});

const MATCH_RESOURCES = obj({
  excludeResourceRules: atomic(ref("admissionregistration.v1.NamedRuleWithOperations")),
  matchPolicy: withDefault(enumOf(["Equivalent", "Exact"]), "Equivalent"),
  namespaceSelector: withDefault(labelSelector(), {}),
  objectSelector: withDefault(labelSelector(), {}),
  resourceRules: atomic(ref("admissionregistration.v1.NamedRuleWithOperations")),
});

const POLICY_SPEC = obj({
  auditAnnotations: atomic(obj({ key: req(str()), valueExpression: req(str()) })),
  failurePolicy: withDefault(enumOf(["Fail", "Ignore"]), "Fail"),
  matchConditions: listMap(obj({ expression: req(str()), name: req(str()) }), ["name"], { patch: true }),
  matchConstraints: ref("admissionregistration.v1.MatchResources"),
  paramKind: obj({ apiVersion: str(), kind: str() }),
  validations: atomic(obj({ expression: req(str()), message: str(), messageExpression: str(), reason: str() })),
  variables: atomic(obj({ expression: req(str()), name: req(str()) })),
});

const POLICY_STATUS = obj({
  conditions: listMap(ref("meta.v1.Condition"), ["type"]),
  observedGeneration: int64(),
  typeChecking: obj({ expressionWarnings: atomic(obj({ fieldRef: req(str()), warning: req(str()) })) }),
});

const BINDING_SPEC = obj({
  matchResources: ref("admissionregistration.v1.MatchResources"),
  paramRef: obj({ name: str(), namespace: str(), parameterNotFoundAction: enumOf(["Allow", "Deny"]), selector: labelSelector() }),
  policyName: str(),
  validationActions: { ...strings(), listType: "set", items: enumOf(["Audit", "Deny", "Warn"]) },
});

export const ADMISSION_POLICY_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "admissionregistration.v1.NamedRuleWithOperations": NAMED_RULE,
  "admissionregistration.v1.MatchResources": MATCH_RESOURCES,
  "admissionregistration.v1.ValidatingAdmissionPolicy": resource(
    "ValidatingAdmissionPolicy accepts or rejects objects with CEL expressions, without changing them.",
    {
      spec: POLICY_SPEC,
      status: POLICY_STATUS,
    },
  ),
  "admissionregistration.v1.ValidatingAdmissionPolicyBinding": resource(
    "ValidatingAdmissionPolicyBinding applies a ValidatingAdmissionPolicy to resources, with parameters.",
    {
      spec: BINDING_SPEC,
    },
  ),
};

export const ADMISSION_POLICY_KINDS: readonly KindDeclaration[] = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"].map((kind) => ({
  group: "admissionregistration",
  domain: true,
  version: "v1",
  kind,
  id: `admissionregistration.v1.${kind}`,
}));
