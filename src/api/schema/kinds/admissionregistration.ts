import { atomic, bytes, enumOf, int32, labelSelector, listMap, obj, ref, req, str, strings, withDefault, type SchemaNode } from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/**
 * admissionregistration.<apiDomain> v1 (storage) and v1beta1: the webhook configurations. The
 * versions differ in what is required and in their defaults (v1: failurePolicy Fail, matchPolicy
 * Equivalent, timeoutSeconds 10; v1beta1: Ignore, Exact, 30, sideEffects Unknown).
 */

const RULE = obj({
  apiGroups: strings('API groups; "" is the core group, "*" all.'),
  apiVersions: strings(),
  operations: atomic(enumOf(["*", "CONNECT", "CREATE", "DELETE", "UPDATE"])),
  resources: strings('Resources; "*" all (not sub-resources), "*/*" all with sub-resources, "pods/*", "*/status".'),
  scope: withDefault(enumOf(["*", "Cluster", "Namespaced"]), "*"),
});

const CLIENT_CONFIG = obj(
  {
    caBundle: bytes("PEM CA bundle to verify the webhook's serving certificate."),
    service: obj(
      { name: req(str()), namespace: req(str()), path: str(), port: withDefault(int32(), 443) },
      { description: "The service in front of the webhook." },
    ),
    url: str("https URL of the webhook, without user info, query or fragment."),
  },
  { description: "How to reach the webhook: url or service, exactly one." },
);

function webhook(version: "v1" | "v1beta1", mutating: boolean): SchemaNode {
  const v1 = version === "v1";
  const properties = {
    admissionReviewVersions: v1 ? req(strings("AdmissionReview versions the webhook accepts, in order of preference.")) : withDefault(strings(), ["v1beta1"]),
    clientConfig: req(ref(`admissionregistration.${version}.WebhookClientConfig`)),
    failurePolicy: withDefault(enumOf(["Fail", "Ignore"], "What to do when the call fails."), v1 ? "Fail" : "Ignore"),
    matchConditions: listMap(obj({ expression: req(str()), name: req(str()) }), ["name"], { patch: true }),
    matchPolicy: withDefault(enumOf(["Equivalent", "Exact"]), v1 ? "Equivalent" : "Exact"),
    name: req(str("Name of the webhook, a qualified name such as imagepolicy.example.com; unique in the configuration.")),
    namespaceSelector: withDefault(labelSelector(), {}),
    objectSelector: withDefault(labelSelector(), {}),
    rules: atomic(RULE),
    sideEffects: v1
      ? req(
          enumOf(["None", "NoneOnDryRun", "Some", "Unknown"], "None or NoneOnDryRun; Some and Unknown remain only on configurations created through v1beta1."),
        )
      : withDefault(enumOf(["None", "NoneOnDryRun", "Some", "Unknown"]), "Unknown"),
    timeoutSeconds: withDefault(int32("Seconds to wait for the webhook, 1 to 30."), v1 ? 10 : 30),
  };
  return obj(mutating ? { ...properties, reinvocationPolicy: withDefault(enumOf(["IfNeeded", "Never"]), "Never") } : properties);
}

function configuration(version: "v1" | "v1beta1", kind: "Mutating" | "Validating"): SchemaNode {
  const item = ref(`admissionregistration.${version}.${kind}Webhook`);
  return resource(`${kind}WebhookConfiguration lists the admission webhooks that ${kind === "Mutating" ? "may change" : "accept or reject"} objects.`, {
    webhooks: version === "v1" ? listMap(item, ["name"], { patch: true }) : { type: "array", items: item, patchStrategy: "merge", patchMergeKey: "name" },
  });
}

export const ADMISSIONREGISTRATION_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "admissionregistration.v1.WebhookClientConfig": CLIENT_CONFIG,
  "admissionregistration.v1beta1.WebhookClientConfig": CLIENT_CONFIG,
  "admissionregistration.v1.MutatingWebhook": webhook("v1", true),
  "admissionregistration.v1.ValidatingWebhook": webhook("v1", false),
  "admissionregistration.v1beta1.MutatingWebhook": webhook("v1beta1", true),
  "admissionregistration.v1beta1.ValidatingWebhook": webhook("v1beta1", false),
  "admissionregistration.v1.MutatingWebhookConfiguration": configuration("v1", "Mutating"),
  "admissionregistration.v1.ValidatingWebhookConfiguration": configuration("v1", "Validating"),
  "admissionregistration.v1beta1.MutatingWebhookConfiguration": configuration("v1beta1", "Mutating"),
  "admissionregistration.v1beta1.ValidatingWebhookConfiguration": configuration("v1beta1", "Validating"),
};

export const ADMISSIONREGISTRATION_KINDS: readonly KindDeclaration[] = ["v1", "v1beta1"].flatMap((version) =>
  ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].map((kind) => ({
    group: "admissionregistration",
    domain: true,
    version,
    kind,
    id: `admissionregistration.${version}.${kind}`,
  })),
);
