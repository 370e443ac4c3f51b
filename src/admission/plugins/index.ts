import type { PluginDescriptor } from "../context.js";
import { alwaysPullImages } from "./always-pull-images.js";
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from "./certificates.js";
import { defaultIngressClass, defaultStorageClass } from "./default-class.js";
import { defaultTolerationSeconds } from "./default-toleration-seconds.js";
import { denyServiceExternalIPs } from "./deny-service-external-ips.js";
import { eventRateLimit, parseEventRateLimitConfig } from "./event-rate-limit.js";
import { namespaceAutoProvision, namespaceExists } from "./namespace-exists.js";
import { nodeRestriction } from "./node-restriction.js";
import { extendedResourceToleration, taintNodesByCondition } from "./node-taints.js";
import { ownerReferencesPermissionEnforcement } from "./owner-references.js";
import { parsePodNodeSelectorConfig, podNodeSelector } from "./pod-node-selector.js";
import { persistentVolumeClaimResize } from "./pvc-resize.js";
import { runtimeClass } from "./runtime-class.js";
import { storageObjectInUseProtection } from "./storage-protection.js";
import { imagePolicyWebhook, parseImagePolicyConfig } from "./image-policy-webhook.js";
import { limitRanger } from "./limit-ranger.js";
import { parsePodSecurityConfig, podSecurity } from "./pod-security.js";
import { priority } from "./priority.js";
import { resourceQuota } from "./resource-quota.js";
import { parseResourceQuotaConfig } from "./resource-quota-config.js";
import { serviceAccount } from "./service-account.js";
import { QuotaLedger } from "./quota-usage.js";
import { validatingAdmissionPolicy } from "./validating-admission-policy/index.js";

export { QuotaLedger } from "./quota-usage.js";
export { quotaCounts, recalculateUsage } from "./quota-recalculate.js";
export { asResourceList, hardOf, usageOf, type Formats, type QuotaNaming } from "./quota-usage.js";
export { SYSTEM_PRIORITY_CLASSES } from "./priority.js";
export { namespaceLifecycle } from "./namespace-lifecycle.js";
export { rbacEscalation } from "./rbac-escalation.js";

/**
 * The named built-in plugins as data, in the order kube runs them (its `AllOrderedPlugins`):
 * whatever the flags enable runs in this order. NamespaceLifecycle is built by the composition
 * root (it needs the immortal namespaces) and is listed here for its place; the webhook plugins
 * are slots the webhook work fills. RBAC escalation is not named: it always runs.
 */
export function builtinPlugins(ledger: QuotaLedger = new QuotaLedger()): readonly PluginDescriptor[] {
  return [
    { name: "NamespaceAutoProvision", defaultOn: false, create: namespaceAutoProvision },
    { name: "NamespaceLifecycle", defaultOn: true },
    { name: "NamespaceExists", defaultOn: false, create: namespaceExists },
    { name: "LimitRanger", defaultOn: true, create: limitRanger },
    { name: "ServiceAccount", defaultOn: true, create: serviceAccount },
    { name: "NodeRestriction", defaultOn: false, create: nodeRestriction },
    { name: "TaintNodesByCondition", defaultOn: true, create: taintNodesByCondition },
    { name: "AlwaysPullImages", defaultOn: false, create: alwaysPullImages },
    { name: "ImagePolicyWebhook", defaultOn: false, parseConfiguration: parseImagePolicyConfig, create: imagePolicyWebhook },
    { name: "PodSecurity", defaultOn: true, parseConfiguration: parsePodSecurityConfig, create: podSecurity },
    { name: "PodNodeSelector", defaultOn: false, parseConfiguration: parsePodNodeSelectorConfig, create: podNodeSelector },
    { name: "Priority", defaultOn: true, create: priority },
    { name: "DefaultTolerationSeconds", defaultOn: true, create: defaultTolerationSeconds },
    { name: "EventRateLimit", defaultOn: false, parseConfiguration: parseEventRateLimitConfig, create: eventRateLimit },
    { name: "ExtendedResourceToleration", defaultOn: false, create: extendedResourceToleration },
    { name: "DefaultStorageClass", defaultOn: true, create: defaultStorageClass },
    // On by default as in kube: controllers/storage-protection clears its finalizers once a claim or volume is unused.
    { name: "StorageObjectInUseProtection", defaultOn: true, create: storageObjectInUseProtection },
    { name: "OwnerReferencesPermissionEnforcement", defaultOn: false, create: ownerReferencesPermissionEnforcement },
    { name: "PersistentVolumeClaimResize", defaultOn: true, create: persistentVolumeClaimResize },
    { name: "RuntimeClass", defaultOn: true, create: runtimeClass },
    { name: "CertificateApproval", defaultOn: true, create: certificateApproval },
    { name: "CertificateSigning", defaultOn: true, create: certificateSigning },
    { name: "CertificateSubjectRestriction", defaultOn: true, create: certificateSubjectRestriction },
    { name: "DefaultIngressClass", defaultOn: true, create: defaultIngressClass },
    { name: "DenyServiceExternalIPs", defaultOn: false, create: denyServiceExternalIPs },
    { name: "MutatingAdmissionWebhook", defaultOn: true },
    { name: "ValidatingAdmissionWebhook", defaultOn: true },
    { name: "ValidatingAdmissionPolicy", defaultOn: true, create: validatingAdmissionPolicy },
    { name: "ResourceQuota", defaultOn: true, parseConfiguration: parseResourceQuotaConfig, create: (context) => resourceQuota(context, ledger) },
  ];
}
