import type { ProtoMessages } from "../messages.js";

/**
 * admissionregistration/v1beta1 messages (the webhook configurations): each field's wire number, and for message-typed fields
 * the message (element/value message for repeated/map fields). The rules are v1's messages (v1beta1 declares them as v1's
 * types). The configurations' `webhooks` list is declared in kube's proto with the name `Webhooks`; the JSON name is kept here.
 */
export const ADMISSIONREGISTRATION_V1BETA1: ProtoMessages = {
  "admissionregistration.v1beta1.MatchCondition": "name=1 expression=2",
  "admissionregistration.v1beta1.MutatingWebhook":
    "name=1 clientConfig=2:admissionregistration.v1beta1.WebhookClientConfig rules=3:admissionregistration.v1.RuleWithOperations failurePolicy=4 matchPolicy=9 " +
    "namespaceSelector=5:meta.v1.LabelSelector objectSelector=11:meta.v1.LabelSelector sideEffects=6 timeoutSeconds=7 admissionReviewVersions=8 " +
    "reinvocationPolicy=10 matchConditions=12:admissionregistration.v1beta1.MatchCondition",
  "admissionregistration.v1beta1.MutatingWebhookConfiguration": "metadata=1:meta.v1.ObjectMeta webhooks=2:admissionregistration.v1beta1.MutatingWebhook",
  "admissionregistration.v1beta1.ServiceReference": "namespace=1 name=2 path=3 port=4",
  "admissionregistration.v1beta1.ValidatingWebhook":
    "name=1 clientConfig=2:admissionregistration.v1beta1.WebhookClientConfig rules=3:admissionregistration.v1.RuleWithOperations failurePolicy=4 matchPolicy=9 " +
    "namespaceSelector=5:meta.v1.LabelSelector objectSelector=10:meta.v1.LabelSelector sideEffects=6 timeoutSeconds=7 admissionReviewVersions=8 " +
    "matchConditions=11:admissionregistration.v1beta1.MatchCondition",
  "admissionregistration.v1beta1.ValidatingWebhookConfiguration": "metadata=1:meta.v1.ObjectMeta webhooks=2:admissionregistration.v1beta1.ValidatingWebhook",
  "admissionregistration.v1beta1.WebhookClientConfig": "url=3 service=1:admissionregistration.v1beta1.ServiceReference caBundle=2",
};
