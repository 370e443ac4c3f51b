import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { Controller } from "../controller.js";

const NAMESPACES: ResourceRef = { group: "", version: "v1", plural: "namespaces" };

export interface NamespaceControllerOptions {
  readonly client: ApiClient;
  /** The finalizer this controller owns in `spec.finalizers`. */
  readonly finalizer: string;
  /** Retry period for namespaces whose content is still going (objects with finalizers). */
  readonly resyncMs?: number;
  readonly onError?: (error: unknown) => void;
}

function isTerminating(namespace: ApiObject): boolean {
  return namespace.metadata.deletionTimestamp !== undefined;
}

function specFinalizers(namespace: ApiObject): string[] {
  const spec = namespace["spec"];
  const finalizers = isPlainObject(spec) ? spec["finalizers"] : undefined;
  return Array.isArray(finalizers) ? finalizers.filter((item): item is string => typeof item === "string") : [];
}

/**
 * Empties terminating namespaces: deletes every namespaced object in them and, once nothing is
 * left, removes its finalizer through `namespaces/{name}/finalize`, which lets the store
 * remove the namespace.
 */
export function namespaceController(options: NamespaceControllerOptions): Controller {
  const { client } = options;
  const resyncMs = options.resyncMs ?? 1000;

  async function drain(namespace: ApiObject): Promise<void> {
    const name = namespace.metadata.name ?? "";
    if (!specFinalizers(namespace).includes(options.finalizer)) return;
    let remaining = 0;
    for (const resource of client.namespacedResources()) {
      await client.deleteCollection(resource, name);
      remaining += (await client.list(resource, name)).items.length;
    }
    if (remaining > 0) return;
    const latest = await client.get(NAMESPACES, "", name);
    if (latest === undefined) return;
    const finalizers = specFinalizers(latest).filter((finalizer) => finalizer !== options.finalizer);
    const spec = isPlainObject(latest["spec"]) ? latest["spec"] : {};
    await client.updateSubresource(NAMESPACES, "", name, "finalize", { ...latest, spec: { ...spec, finalizers } });
  }

  async function reconcileAll(): Promise<boolean> {
    const { items } = await client.list(NAMESPACES, "");
    const terminating = items.filter(isTerminating);
    for (const namespace of terminating) {
      try {
        await drain(namespace);
      } catch (error) {
        options.onError?.(error);
      }
    }
    return terminating.length > 0;
  }

  return {
    name: "namespace",
    async run(signal) {
      const wake = { pending: true, notify: (): void => {} };
      void (async () => {
        try {
          for await (const _change of client.changed(NAMESPACES, signal)) {
            wake.pending = true;
            wake.notify();
          }
        } catch (error) {
          if (!signal.aborted) options.onError?.(error);
        }
      })();
      signal.addEventListener("abort", () => wake.notify(), { once: true });
      let busy = false;
      while (!signal.aborted) {
        if (wake.pending || busy) {
          wake.pending = false;
          try {
            busy = await reconcileAll();
          } catch (error) {
            options.onError?.(error);
          }
        }
        // The abort may have fired while reconciling, when no wait was armed to notify.
        if (signal.aborted) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, busy ? resyncMs : 60_000);
          wake.notify = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}
