import { runReconcileLoop, Wake } from "../reconcile-loop.js";
import { setMaxListeners } from "node:events";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { asResourceList, hardOf, recalculateUsage, type QuotaLedger } from "../../admission/plugins/index.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { Controller } from "../controller.js";

export interface QuotaControllerOptions {
  readonly client: ApiClient;
  /** Shared with the ResourceQuota plugin: its lock and its admitted-but-unstored charges. */
  readonly ledger: QuotaLedger;
  readonly onError?: (error: unknown) => void;
}

const QUOTAS: ResourceRef = { group: "", version: "v1", plural: "resourcequotas" };
/** The resources whose changes wake a recalculation at once; other counted kinds wait for the resync. */
const FOLLOWED = ["resourcequotas", "pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "replicationcontrollers"];
/** How often every quota is recalculated anyway (kube's resync is 5 minutes). */
const RESYNC_MS = 30_000;

/**
 * Keeps every ResourceQuota's `status.hard` equal to `spec.hard` and `status.used` equal to what
 * its namespace holds (plus what admission has charged and not stored yet), under the ledger's
 * namespace lock so a recalculation never races a charge. Runs on start, after changes to quotas
 * and to the core kinds quotas count (deletes give usage back), and every 30 s for the rest.
 */
export function quotaController(options: QuotaControllerOptions): Controller {
  const { client, ledger } = options;

  async function reconcile(quota: ApiObject): Promise<void> {
    const namespace = quota.metadata.namespace ?? "";
    await ledger.locked(namespace, async () => {
      const current = await client.get(QUOTAS, namespace, quota.metadata.name ?? "");
      if (current === undefined) return;
      const hard = isPlainObject(current["spec"]) && isPlainObject(current["spec"]["hard"]) ? current["spec"]["hard"] : {};
      const used = asResourceList(Object.keys(hardOf(current)), await recalculateUsage(client, ledger, current));
      const status = { hard, used };
      if (canonicalJson(current["status"] ?? {}) === canonicalJson(status)) return;
      try {
        await client.updateSubresource(QUOTAS, namespace, current.metadata.name ?? "", "status", { ...current, status });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
    });
  }

  async function reconcileAll(): Promise<void> {
    for (const quota of (await client.list(QUOTAS, "")).items) await reconcile(quota);
  }

  return {
    name: "resourcequota",
    async run(parent) {
      // One listener on the server's signal; the watches below listen on this one.
      const stop = new AbortController();
      setMaxListeners(FOLLOWED.length + 4, stop.signal);
      parent.addEventListener("abort", () => stop.abort(), { once: true });
      const signal = stop.signal;
      const wake = new Wake();
      const follow = async (resource: ResourceRef): Promise<void> => {
        try {
          for await (const _change of client.changed(resource, signal)) wake.poke();
        } catch (error) {
          if (!signal.aborted) options.onError?.(error);
        }
      };
      for (const plural of FOLLOWED) void follow({ group: "", version: "v1", plural });
      const resync = setInterval(() => wake.poke(), RESYNC_MS);
      resync.unref();
      signal.addEventListener("abort", () => clearInterval(resync), { once: true });
      await runReconcileLoop(signal, wake, reconcileAll, options.onError);
    },
  };
}
