import type { ProtoMessages } from "../messages.js";

/**
 * admissionregistration/v1 messages (the webhook configurations): each field's wire number, and for message-typed fields the
 * message (element/value message for repeated/map fields). `RuleWithOperations.rule` is an embedded struct: its fields appear
 * inline in JSON. The configurations' `webhooks` list is declared in kube's proto with the name `Webhooks`; the number is 2
 * either way, and the JSON name is kept here so the field joins its schema property. ValidatingAdmissionPolicy and its binding
 * (GA in 1.30) follow; `NamedRuleWithOperations.ruleWithOperations` is embedded like `rule`.
 */
export const ADMISSIONREGISTRATION_V1: ProtoMessages = {
  "admissionregistration.v1.MatchCondition": "name=1 expression=2",
  "admissionregistration.v1.MutatingWebhook":
    "name=1 clientConfig=2:admissionregistration.v1.WebhookClientConfig rules=3:admissionregistration.v1.RuleWithOperations failurePolicy=4 matchPolicy=9 " +
    "namespaceSelector=5:meta.v1.LabelSelector objectSelector=11:meta.v1.LabelSelector sideEffects=6 timeoutSeconds=7 admissionReviewVersions=8 " +
    "reinvocationPolicy=10 matchConditions=12:admissionregistration.v1.MatchCondition",
  "admissionregistration.v1.MutatingWebhookConfiguration": "metadata=1:meta.v1.ObjectMeta webhooks=2:admissionregistration.v1.MutatingWebhook",
  "admissionregistration.v1.Rule": "apiGroups=1 apiVersions=2 resources=3 scope=4",
  "admissionregistration.v1.RuleWithOperations": "operations=1 rule=2:admissionregistration.v1.Rule",
  "admissionregistration.v1.ServiceReference": "namespace=1 name=2 path=3 port=4",
  "admissionregistration.v1.ValidatingWebhook":
    "name=1 clientConfig=2:admissionregistration.v1.WebhookClientConfig rules=3:admissionregistration.v1.RuleWithOperations failurePolicy=4 matchPolicy=9 " +
    "namespaceSelector=5:meta.v1.LabelSelector objectSelector=10:meta.v1.LabelSelector sideEffects=6 timeoutSeconds=7 admissionReviewVersions=8 " +
    "matchConditions=11:admissionregistration.v1.MatchCondition",
  "admissionregistration.v1.ValidatingWebhookConfiguration": "metadata=1:meta.v1.ObjectMeta webhooks=2:admissionregistration.v1.ValidatingWebhook",
  "admissionregistration.v1.WebhookClientConfig": "url=3 service=1:admissionregistration.v1.ServiceReference caBundle=2",
  "admissionregistration.v1.AuditAnnotation": "key=1 valueExpression=2",
  "admissionregistration.v1.ExpressionWarning": "fieldRef=2 warning=3",
  "admissionregistration.v1.MatchResources":
    "namespaceSelector=1:meta.v1.LabelSelector objectSelector=2:meta.v1.LabelSelector resourceRules=3:admissionregistration.v1.NamedRuleWithOperations " +
    "excludeResourceRules=4:admissionregistration.v1.NamedRuleWithOperations matchPolicy=7",
  "admissionregistration.v1.NamedRuleWithOperations": "resourceNames=1 ruleWithOperations=2:admissionregistration.v1.RuleWithOperations",
  "admissionregistration.v1.ParamKind": "apiVersion=1 kind=2",
  "admissionregistration.v1.ParamRef": "name=1 namespace=2 selector=3:meta.v1.LabelSelector parameterNotFoundAction=4",
  "admissionregistration.v1.TypeChecking": "expressionWarnings=1:admissionregistration.v1.ExpressionWarning",
  "admissionregistration.v1.ValidatingAdmissionPolicy":
    "metadata=1:meta.v1.ObjectMeta spec=2:admissionregistration.v1.ValidatingAdmissionPolicySpec status=3:admissionregistration.v1.ValidatingAdmissionPolicyStatus",
  "admissionregistration.v1.ValidatingAdmissionPolicyBinding":
    "metadata=1:meta.v1.ObjectMeta spec=2:admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec",
  "admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec":
    "policyName=1 paramRef=2:admissionregistration.v1.ParamRef matchResources=3:admissionregistration.v1.MatchResources validationActions=4",
  "admissionregistration.v1.ValidatingAdmissionPolicySpec":
    "paramKind=1:admissionregistration.v1.ParamKind matchConstraints=2:admissionregistration.v1.MatchResources validations=3:admissionregistration.v1.Validation " +
    "failurePolicy=4 auditAnnotations=5:admissionregistration.v1.AuditAnnotation matchConditions=6:admissionregistration.v1.MatchCondition variables=7:admissionregistration.v1.Variable",
  "admissionregistration.v1.ValidatingAdmissionPolicyStatus":
    "observedGeneration=1 typeChecking=2:admissionregistration.v1.TypeChecking conditions=3:meta.v1.Condition",
  "admissionregistration.v1.Validation": "expression=1 message=2 reason=3 messageExpression=4",
  "admissionregistration.v1.Variable": "name=1 expression=2",
};

/** The policy messages (all but the webhook configurations' and the rules kube shares from v1). */
const POLICY_MESSAGES = new Set([
  "AuditAnnotation",
  "ExpressionWarning",
  "MatchResources",
  "NamedRuleWithOperations",
  "ParamKind",
  "ParamRef",
  "TypeChecking",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingAdmissionPolicyBindingSpec",
  "ValidatingAdmissionPolicySpec",
  "ValidatingAdmissionPolicyStatus",
  "Validation",
  "Variable",
]);

/**
 * ValidatingAdmissionPolicy and its binding at v1beta1 or v1alpha1: v1's messages and wire numbers
 * under the version's package (kube's generated.proto); `RuleWithOperations` stays v1's.
 * `MatchCondition` is added for v1alpha1 (v1beta1 declares it with its webhooks).
 */
export function admissionPolicyMessages(version: "v1beta1" | "v1alpha1"): ProtoMessages {
  const renamed = (fields: string): string =>
    fields.replace(/:admissionregistration\.v1\.(\w+)/g, (whole, name: string) =>
      POLICY_MESSAGES.has(name) || name === "MatchCondition" ? `:admissionregistration.${version}.${name}` : whole,
    );
  const entries = Object.entries(ADMISSIONREGISTRATION_V1)
    .filter(([id]) => POLICY_MESSAGES.has(id.slice("admissionregistration.v1.".length)))
    .map(([id, fields]) => [id.replace("admissionregistration.v1.", `admissionregistration.${version}.`), renamed(fields)]);
  if (version === "v1alpha1") entries.push(["admissionregistration.v1alpha1.MatchCondition", "name=1 expression=2"]);
  return Object.fromEntries(entries);
}
