import type { ApiObject } from "../../api/object.js";
import { ApiError } from "../../api/errors.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { formatQuantityIn, quantityFormat, type QuantityFormat } from "../../api/quantity.js";
import { amount } from "./quantities.js";
import { recalculateUsage } from "./quota-recalculate.js";
import { addUsage, asResourceList, hardOf, inScope, usageOf, type Formats, type QuotaLedger, type Usage } from "./quota-usage.js";
import { containersOf, recordOf, specOf } from "./pod-spec.js";
import { resourceReader } from "./reads.js";
import { uncoveredLimits } from "./quota-limited.js";
import type { ResourceQuotaConfig } from "./resource-quota-config.js";

/** A quantity as kube's message prints it: the stored text (its parser keeps it), else the amount in its format. */
function textOf(stored: unknown, value: number | undefined, format: QuantityFormat | undefined): string {
  if (typeof stored === "string") return stored;
  return formatQuantityIn(value ?? 0, format ?? "DecimalSI");
}

export const RESOURCE_QUOTAS = { group: "", version: "v1", plural: "resourcequotas" };

/** Core resources whose updates are charged (kube's evaluators that handle UPDATE; pods only with in-place resize, off in 1.30). */
const UPDATE_CHARGED = new Set(["services", "persistentvolumeclaims"]);

/** How often a charge is tried when another server's charge of the same quota got in first. */
const CONFLICT_ATTEMPTS = 10;

/** Compute resources a quota requires every container to declare (kube's validation set). */
const DECLARED = new Set(["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"]);

/**
 * kube's pod constraint: each container (init containers too) must declare every compute
 * resource of `DECLARED` the quota limits. The reason names each missing resource with its
 * containers: `must specify limits.memory for: app; requests.cpu for: app,side`; none: undefined.
 */
function undeclared(pod: ApiObject, limited: readonly string[]): string | undefined {
  const required = limited.filter((name) => DECLARED.has(name));
  if (required.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const container of containersOf(specOf(pod))) {
    const resources = recordOf(container["resources"]);
    const requests = recordOf(resources["requests"]);
    const limits = recordOf(resources["limits"]);
    const declared = new Set<string>();
    for (const name of ["cpu", "memory"]) {
      if (requests[name] !== undefined) declared.add(name).add(`requests.${name}`);
      if (limits[name] !== undefined) declared.add(`limits.${name}`);
    }
    for (const name of required) {
      if (declared.has(name)) continue;
      const containers = missing.get(name) ?? new Set<string>();
      containers.add(String(container["name"] ?? ""));
      missing.set(name, containers);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((name) => `${name} for: ${[...(missing.get(name) ?? [])].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}

/**
 * ResourceQuota: a create in a namespace with quotas is charged against each quota in scope that
 * tracks what it uses; one that would exceed `spec.hard` is refused (403 `exceeded quota`). The
 * charge is written to the quota's `status.used` (with its `resourceVersion`) before the object is
 * stored, under a per-namespace lock, so concurrent creates cannot overspend. Dry-run checks
 * without charging. The quota controller recalculates usage on deletes and spec changes. The
 * configuration's `limitedResources` refuse a create no quota covers (quota-limited.ts).
 */
export function resourceQuota(context: PluginContext, ledger: QuotaLedger): AdmissionPlugin {
  const quotas = resourceReader(context, RESOURCE_QUOTAS);
  const config = (context.configuration as ResourceQuotaConfig | undefined) ?? { limitedResources: [] };
  return {
    name: "ResourceQuota",
    // Updates too: a Service's type or a claim's requested storage can grow (kube's service and claim evaluators handle both).
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    // A new quota starts with its status computed (the controller would write it a moment later,
    // and that write would make the creator's next update conflict).
    mutate(attributes) {
      const quota = attributes.object;
      if (
        attributes.operation !== "CREATE" ||
        quota === undefined ||
        attributes.resource.group !== "" ||
        attributes.resource.resource !== "resourcequotas" ||
        attributes.subresource !== ""
      )
        return;
      return initialStatus(quota, attributes.namespace);
    },
    // Synchronous in a namespace without quotas once the cache holds this server's writes (no promise made).
    validate(attributes) {
      const object = attributes.object;
      if (object === undefined || attributes.subresource !== "" || !attributes.resource.namespaced || attributes.namespace === "") return;
      if (attributes.operation === "UPDATE" && !(attributes.resource.group === "" && UPDATE_CHARGED.has(attributes.resource.resource))) return;
      // The quotas as this server's cache holds them (kube's quota admission reads its informer):
      // no store round trip per create. A quota another server wrote a moment ago may be missed
      // as kube's would; each charge below reads the quota itself and writes it with its
      // resourceVersion, so charges never overspend.
      const listed = quotas.listCachedNow(attributes.namespace);
      if (listed !== undefined) return admit(attributes, object, listed);
      return quotas.listCached(attributes.namespace).then((all) => admit(attributes, object, all));
    },
  };

  /** The limitedResources check (on the cached quotas, as kube's), then the charge when the namespace has quotas. */
  function admit(attributes: AdmissionAttributes, object: ApiObject, listed: readonly ApiObject[]): Promise<void> | undefined {
    if (config.limitedResources.length > 0) {
      const { group, resource: plural } = attributes.resource;
      const withNamespace: ApiObject = { ...object, metadata: { ...object.metadata, namespace: attributes.namespace } };
      const why = uncoveredLimits({
        config,
        group,
        plural,
        object: withNamespace,
        usage: usageOf(group, plural, withNamespace, undefined, ledger.naming),
        quotas: listed,
      });
      // kube refuses an uncovered scope with a plain error: a 500 Status without a reason.
      if (why?.kind === "consume") throw denied(attributes, why.message);
      if (why?.kind === "scopes") throw new ApiError(500, "", why.message);
    }
    return listed.length === 0 ? undefined : charge(attributes, object, listed);
  }

  async function initialStatus(quota: ApiObject, namespace: string): Promise<void> {
    const withNamespace: ApiObject = { ...quota, metadata: { ...quota.metadata, namespace } };
    const formats: Formats = {};
    const used = await recalculateUsage(context.client, ledger, withNamespace, formats);
    quota["status"] = { hard: recordOf(recordOf(quota["spec"])["hard"]), used: asResourceList(Object.keys(hardOf(quota)), used, formats) };
  }

  /** Charges a create against the namespace's quotas (`listed`, not empty) in scope, or refuses it. */
  async function charge(attributes: AdmissionAttributes, object: ApiObject, listed: readonly ApiObject[]): Promise<void> {
    const { group, resource: plural } = attributes.resource;
    const withNamespace: ApiObject = { ...object, metadata: { ...object.metadata, namespace: attributes.namespace } };
    const deltaFormats: Formats = {};
    const delta = usageOf(group, plural, withNamespace, deltaFormats, ledger.naming);
    // An update is charged only what it adds to the stored object's usage (kube's SubtractWithNonNegativeResult).
    const old = attributes.operation === "UPDATE" ? attributes.oldObject : undefined;
    if (old !== undefined) {
      const previous = usageOf(group, plural, { ...old, metadata: { ...old.metadata, namespace: attributes.namespace } }, undefined, ledger.naming);
      for (const name of Object.keys(delta)) delta[name] = Math.max(0, (delta[name] ?? 0) - (previous[name] ?? 0));
    }
    // The lock orders this server's charges; another server sharing the store charges the same
    // quota too, and the status write (with its resourceVersion) makes one of two concurrent
    // charges conflict: that one reads the quota again and re-checks, as kube's evaluator does.
    for (let attempt = 1; ; attempt++) {
      let written = 0;
      try {
        await chargeLocked(() => written++);
        return;
      } catch (error) {
        if (written > 0 || attempt >= CONFLICT_ATTEMPTS || !(error instanceof ApiError && error.code === 409)) throw error;
      }
    }
    async function chargeLocked(onWritten: () => void): Promise<void> {
      await ledger.locked(attributes.namespace, async () => {
        const writes: ApiObject[] = [];
        for (const summary of listed) {
          const quota = (await context.client.get(RESOURCE_QUOTAS, attributes.namespace, summary.metadata.name ?? "")) ?? structuredClone(summary);
          if (!inScope(quota, plural, withNamespace)) continue;
          const hard = hardOf(quota);
          const names = Object.keys(hard);
          const charged = names.filter((name) => (delta[name] ?? 0) > 0);
          if (plural === "pods") {
            const reason = undeclared(withNamespace, names);
            if (reason !== undefined) throw denied(attributes, `failed quota: ${quota.metadata.name ?? ""}: ${reason}`);
          }
          if (charged.length === 0) continue;
          const status = recordOf(quota["status"]);
          const recorded = recordOf(status["used"]);
          const known =
            names.every((name) => recorded[name] !== undefined) &&
            JSON.stringify(recordOf(status["hard"])) === JSON.stringify(recordOf(recordOf(quota["spec"])["hard"]));
          const usedFormats: Formats = {};
          const used: Usage = known
            ? Object.fromEntries(names.map((name) => [name, amount(recorded[name]) ?? 0]))
            : await recalculateUsage(context.client, ledger, quota, usedFormats);
          if (known) for (const name of names) usedFormats[name] = quantityFormat(recorded[name]);
          // kube's message lists the exceeded names sorted, each amount as its Quantity writes it.
          const exceeded = charged.filter((name) => (used[name] ?? 0) + (delta[name] ?? 0) > (hard[name] ?? 0)).sort();
          if (exceeded.length > 0) {
            const specHard = recordOf(recordOf(quota["spec"])["hard"]);
            const list = (text: (name: string) => string): string => exceeded.map((name) => `${name}=${text(name)}`).join(",");
            throw denied(
              attributes,
              `exceeded quota: ${quota.metadata.name ?? ""}, requested: ${list((name) => formatQuantityIn(delta[name] ?? 0, deltaFormats[name] ?? "DecimalSI"))}, used: ${list((name) => textOf(known ? recorded[name] : undefined, used[name], usedFormats[name]))}, limited: ${list((name) => textOf(specHard[name], hard[name], undefined))}`,
            );
          }
          addUsage(used, usedFormats, Object.fromEntries(charged.map((name) => [name, delta[name] ?? 0])), deltaFormats);
          writes.push({ ...quota, status: { hard: recordOf(recordOf(quota["spec"])["hard"]), used: asResourceList(names, used, usedFormats) } });
        }
        if (attributes.dryRun) return;
        for (const quota of writes) {
          await context.client.updateSubresource(RESOURCE_QUOTAS, attributes.namespace, quota.metadata.name ?? "", "status", quota);
          onWritten();
        }
        if (writes.length > 0 && old === undefined) ledger.charge(group, plural, withNamespace);
      });
    }
  }
}
