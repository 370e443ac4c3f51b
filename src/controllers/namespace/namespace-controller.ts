import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";

const NAMESPACES: ResourceRef = { group: "", version: "v1", plural: "namespaces" };

export interface NamespaceControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The finalizer this controller owns in `spec.finalizers`. */
  readonly finalizer: string;
  /** Retry period for namespaces whose content is still going (objects with finalizers). */
  readonly resyncMs?: number;
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
 * remove the namespace. Keys are namespace names, queued when a namespace is (or turns)
 * terminating; a namespace whose content is still going (objects with finalizers) is looked at
 * again after `resyncMs`. Nothing runs while no namespace is terminating.
 */
export function namespaceController(options: NamespaceControllerOptions): QueueControllerSpec {
  const { client } = options;
  const resyncMs = options.resyncMs ?? 1000;
  const namespaces = options.informers.informer(NAMESPACES);
  const terminating = (): string[] =>
    namespaces
      .list()
      .filter(isTerminating)
      .map((namespace) => namespace.metadata.name ?? "");

  /** Deletes what is left in the namespace; true once nothing is. */
  async function drain(name: string): Promise<boolean> {
    let remaining = 0;
    for (const resource of client.namespacedResources()) {
      await client.deleteCollection(resource, name);
      remaining += (await client.list(resource, name)).items.length;
    }
    return remaining === 0;
  }

  return {
    name: "namespace",
    watch(queue) {
      const onNamespace = (namespace: ApiObject): void => {
        if (isTerminating(namespace)) queue.add(namespace.metadata.name ?? "");
      };
      return namespaces.addHandlers({
        onAdd: onNamespace,
        onUpdate: onNamespace,
        onReset: () => {
          for (const name of terminating()) queue.add(name);
        },
      });
    },
    initialKeys: terminating,
    async reconcile(name) {
      const namespace = namespaces.get("", name);
      if (namespace === undefined || !isTerminating(namespace) || !specFinalizers(namespace).includes(options.finalizer)) return;
      if (!(await drain(name))) return resyncMs;
      const latest = await client.get(NAMESPACES, "", name);
      if (latest === undefined) return;
      const finalizers = specFinalizers(latest).filter((finalizer) => finalizer !== options.finalizer);
      const spec = isPlainObject(latest["spec"]) ? latest["spec"] : {};
      await client.updateSubresource(NAMESPACES, "", name, "finalize", { ...latest, spec: { ...spec, finalizers } });
    },
  };
}
