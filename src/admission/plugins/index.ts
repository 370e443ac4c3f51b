import type { PluginDescriptor } from "../context.js";
import { defaultTolerationSeconds } from "./default-toleration-seconds.js";
import { limitRanger } from "./limit-ranger.js";
import { parsePodSecurityConfig, podSecurity } from "./pod-security.js";
import { priority } from "./priority.js";
import { resourceQuota } from "./resource-quota.js";
import { serviceAccount } from "./service-account.js";
import { QuotaLedger } from "./quota-usage.js";

export { QuotaLedger } from "./quota-usage.js";
export { recalculateUsage } from "./quota-recalculate.js";
export { asResourceList, hardOf } from "./quota-usage.js";
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
    { name: "NamespaceLifecycle", defaultOn: true },
    { name: "LimitRanger", defaultOn: true, create: limitRanger },
    { name: "ServiceAccount", defaultOn: true, create: serviceAccount },
    { name: "PodSecurity", defaultOn: true, parseConfiguration: parsePodSecurityConfig, create: podSecurity },
    { name: "Priority", defaultOn: true, create: priority },
    { name: "DefaultTolerationSeconds", defaultOn: true, create: defaultTolerationSeconds },
    { name: "MutatingAdmissionWebhook", defaultOn: true },
    { name: "ValidatingAdmissionWebhook", defaultOn: true },
    { name: "ResourceQuota", defaultOn: true, create: (context) => resourceQuota(context, ledger) },
  ];
}
