import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import {
  asResourceList,
  hardOf,
  quotaCounts,
  recalculateUsage,
  usageOf,
  type Formats,
  type QuotaLedger,
  type QuotaNaming,
} from "../../admission/plugins/index.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";

export interface QuotaControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** Shared with the ResourceQuota plugin: its lock and its admitted-but-unstored charges. */
  readonly ledger: QuotaLedger;
  /** Discovery's changes (kube's quota monitor follows every resource served, custom ones included). */
  readonly onResourcesChanged?: (listener: (groupVersions: ReadonlySet<string>) => void) => () => void;
  /** The safety-net recount of a namespace with quotas (kube's `--resource-quota-sync-period`, default 5 minutes). */
  readonly resyncMs?: number;
}

const QUOTAS: ResourceRef = { group: "", version: "v1", plural: "resourcequotas" };
/** The kinds whose updates can change what a quota counts of them (their deletes, like every kind's, recount at once). */
const FOLLOWED = ["pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers"];
/** kube-controller-manager's `--resource-quota-sync-period` default. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** What a quota counts of an object: its usage, whether it is terminal or terminating, its scope fields. */
function quotaView(plural: string, object: ApiObject, naming: QuotaNaming): string {
  const status = isPlainObject(object["status"]) ? object["status"] : {};
  const spec = isPlainObject(object["spec"]) ? object["spec"] : {};
  return canonicalJson([
    usageOf("", plural, object, undefined, naming),
    status["phase"] ?? null,
    object.metadata.deletionTimestamp ?? null,
    spec["activeDeadlineSeconds"] ?? null,
    spec["priorityClassName"] ?? null,
  ]);
}

/**
 * Whether a quota's change asks for a recount: its `spec.hard` changed, or its status does not
 * capture the spec yet (`status.hard` differs, or a limited resource has no `status.used`), as
 * kube's controller decides. Not a status-only change: those are admission's charges, and on
 * servers sharing a store (etcd) a recount on one would undo another's charge whose object is not
 * stored yet (only this server's ledger knows its own in-flight charges), letting creates past `hard`.
 */
export function quotaChangeNeedsRecount(quota: ApiObject, previous: ApiObject): boolean {
  const specHard = (object: ApiObject): unknown => (isPlainObject(object["spec"]) ? object["spec"]["hard"] : undefined) ?? {};
  if (canonicalJson(specHard(quota)) !== canonicalJson(specHard(previous))) return true;
  const status = isPlainObject(quota["status"]) ? quota["status"] : {};
  if (canonicalJson(status["hard"] ?? {}) !== canonicalJson(specHard(quota))) return true;
  const used = isPlainObject(status["used"]) ? status["used"] : {};
  return Object.keys(hardOf(quota)).some((name) => used[name] === undefined);
}

/**
 * Keeps every ResourceQuota's `status.hard` equal to `spec.hard` and `status.used` equal to what
 * its namespace holds (plus what admission has charged and not stored yet), under the ledger's
 * namespace lock so a recalculation never races a charge of this server. Keys are namespaces: a
 * new quota, a change to a quota's spec (`quotaChangeNeedsRecount`; not admission's charges to its
 * status), or to an object of a counted kind in a namespace that has quotas, recounts that
 * namespace only; each namespace with quotas is recounted again after `resyncMs` as a safety net
 * (for the kinds not followed). A namespace without quotas costs nothing.
 */
export function quotaController(options: QuotaControllerOptions): QueueControllerSpec {
  const { client, ledger } = options;
  const quotas = options.informers.indexed(QUOTAS);
  const resyncMs = options.resyncMs ?? QUOTA_RESYNC_MS;

  async function reconcileQuota(namespace: string, name: string): Promise<void> {
    const current = await client.get(QUOTAS, namespace, name);
    if (current === undefined) return;
    const hard = isPlainObject(current["spec"]) && isPlainObject(current["spec"]["hard"]) ? current["spec"]["hard"] : {};
    const formats: Formats = {};
    const used = asResourceList(Object.keys(hardOf(current)), await recalculateUsage(client, ledger, current, formats), formats);
    const status = { hard, used };
    if (canonicalJson(current["status"] ?? {}) === canonicalJson(status)) return;
    try {
      await client.updateSubresource(QUOTAS, namespace, name, "status", { ...current, status });
    } catch (error) {
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
  }

  const namespacesWithQuotas = (): Set<string> => new Set(quotas.list().map((quota) => quota.metadata.namespace ?? ""));

  return {
    name: "resourcequota",
    watch(queue) {
      const onQuota = (quota: ApiObject): void => queue.add(quota.metadata.namespace ?? "");
      const onObject = (object: ApiObject): void => {
        const namespace = object.metadata.namespace ?? "";
        if (quotas.listNamespace(namespace).length > 0) queue.add(namespace);
      };
      // A deleted object gives its usage back: recount its namespace when one of its quotas counts that resource.
      const onDelete =
        (resource: ResourceRef) =>
        (object: ApiObject): void => {
          const namespace = object.metadata.namespace ?? "";
          if (quotas.listNamespace(namespace).some((quota) => quotaCounts(quota, resource))) queue.add(namespace);
        };
      // Creates are charged by admission; an update recounts only when what a quota sees of it changed.
      const onUpdate =
        (plural: string) =>
        (object: ApiObject, previous: ApiObject): void => {
          if (quotaView(plural, object, ledger.naming) !== quotaView(plural, previous, ledger.naming)) onObject(object);
        };
      const all = (): void => {
        for (const namespace of namespacesWithQuotas()) queue.add(namespace);
      };
      const following = new Map<string, { readonly resource: ResourceRef; readonly off: () => void }>();
      const follow = (resource: ResourceRef): void => {
        const updates = resource.group === "" && FOLLOWED.includes(resource.plural);
        following.set(`${resource.group}/${resource.plural}`, {
          resource,
          off: options.informers.informer(resource).addHandlers({
            // A create was charged by admission: no recount (a charge's status write does not recount either), but the
            // ledger forgets its in-flight entry, which a recount after a delete of the object would otherwise count.
            onAdd: (object) => ledger.stored(resource.group, resource.plural, object),
            ...(updates ? { onUpdate: onUpdate(resource.plural) } : {}),
            onDelete: onDelete(resource),
            onReset: all,
          }),
        });
      };
      const served = (): Map<string, ResourceRef> => {
        const out = new Map<string, ResourceRef>();
        for (const resource of client.servedResources()) {
          const id = `${resource.group}/${resource.plural}`;
          if (resource.namespaced && resource.plural !== "events" && !out.has(id)) out.set(id, resource);
        }
        return out;
      };
      for (const resource of served().values()) follow(resource);
      // Discovery changed (custom resources come and go, a version is added): follow what is served now.
      const offDiscovery = options.onResourcesChanged?.((groupVersions) => {
        const now = served();
        for (const [id, entry] of following) {
          const current = now.get(id);
          if (current !== undefined && current.version === entry.resource.version && !groupVersions.has(`${current.group}/${current.version}`)) continue;
          entry.off();
          following.delete(id);
        }
        for (const [id, resource] of now) if (!following.has(id)) follow(resource);
      });
      const off = [
        quotas.addHandlers({
          onAdd: onQuota,
          onUpdate: (quota, previous) => {
            if (quotaChangeNeedsRecount(quota, previous)) onQuota(quota);
          },
          onReset: all,
        }),
      ];
      return () => {
        offDiscovery?.();
        for (const entry of following.values()) entry.off();
        following.clear();
        for (const unsubscribe of off) unsubscribe();
      };
    },
    initialKeys: namespacesWithQuotas,
    async reconcile(namespace) {
      const names = quotas.listNamespace(namespace).map((quota) => quota.metadata.name ?? "");
      if (names.length === 0) return;
      await ledger.locked(namespace, async () => {
        for (const name of names) await reconcileQuota(namespace, name);
      });
      return resyncMs;
    },
  };
}
