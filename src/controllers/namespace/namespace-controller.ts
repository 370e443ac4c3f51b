import { isPlainObject, nowTimestamp, type ApiObject } from "../../api/object.js";
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

/** What one pass over a terminating namespace found left, per resource and per finalizer, and what failed. */
interface ContentTotals {
  /** `<plural>.<group>` → objects left. */
  readonly resources: Map<string, number>;
  /** finalizer → objects left holding it. */
  readonly finalizers: Map<string, number>;
  /** Messages of the resources whose content could not be deleted. */
  readonly errors: string[];
}

type Condition = Record<string, unknown>;

/**
 * The conditions kube's namespace deleter keeps on a terminating namespace, in its order, with
 * the reason and message each has when nothing is wrong (status False).
 */
const CONDITION_TYPES: readonly (readonly [type: string, okReason: string, okMessage: string])[] = [
  ["NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"],
  ["NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
  ["NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
  ["NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"],
  ["NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
];

/** `name in N resource instances` lines, sorted as kube sorts them for stable updates. */
function counted(counts: ReadonlyMap<string, number>, phrase: string): string {
  return [...counts]
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name} ${phrase} ${count} resource instances`)
    .sort()
    .join(", ");
}

/** The failing conditions of one pass (status True), by type; the other types are at their ok values. */
function failures(totals: ContentTotals): Map<string, readonly [reason: string, message: string]> {
  const found = new Map<string, readonly [string, string]>();
  if (totals.errors.length > 0) {
    const messages = [...totals.errors].sort().join(", ");
    found.set("NamespaceDeletionContentFailure", [
      "ContentDeletionFailed",
      `Failed to delete all resource types, ${totals.errors.length} remaining: ${messages}`,
    ]);
  }
  if (totals.resources.size > 0)
    found.set("NamespaceContentRemaining", ["SomeResourcesRemain", `Some resources are remaining: ${counted(totals.resources, "has")}`]);
  if (totals.finalizers.size > 0)
    found.set("NamespaceFinalizersRemaining", [
      "SomeFinalizersRemain",
      `Some content in the namespace has finalizers remaining: ${counted(totals.finalizers, "in")}`,
    ]);
  return found;
}

/**
 * The namespace's conditions after a pass, as kube's updater makes them: each of the five types
 * is added when missing; an existing one (the first of its type) is replaced, with a new
 * transition time, when its status flips, and otherwise only gets the new reason and message.
 * Other condition types are kept. Undefined when nothing changed.
 */
export function namespaceConditions(current: readonly unknown[], totals: ContentTotals, now: string): Condition[] | undefined {
  const conditions = current.map((condition): Condition => (isPlainObject(condition) ? { ...condition } : {}));
  const failing = failures(totals);
  let changed = false;
  for (const [type, okReason, okMessage] of CONDITION_TYPES) {
    const failure = failing.get(type);
    const status = failure === undefined ? "False" : "True";
    const [reason, message] = failure ?? [okReason, okMessage];
    const index = conditions.findIndex((condition) => condition["type"] === type);
    const existing = conditions[index];
    if (existing === undefined) {
      conditions.push({ type, status, lastTransitionTime: now, reason, message });
      changed = true;
    } else if (existing["status"] !== status) {
      conditions[index] = { type, status, lastTransitionTime: now, reason, message };
      changed = true;
    } else if (existing["reason"] !== reason || existing["message"] !== message) {
      conditions[index] = { ...existing, reason, message };
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}

/**
 * Empties terminating namespaces: deletes every namespaced object in them and, once nothing is
 * left, removes its finalizer through `namespaces/{name}/finalize`, which lets the store
 * remove the namespace. Each pass records what is left in the namespace's status conditions as
 * kube's namespace controller does (`NamespaceContentRemaining`, `NamespaceFinalizersRemaining`,
 * `NamespaceDeletionContentFailure` and their ok counterparts), which `kubectl describe ns` and
 * stuck-namespace diagnosis read. Keys are namespace names, queued when a namespace is (or turns)
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

  /** Deletes what is left in the namespace and counts what stays. */
  async function drain(name: string): Promise<ContentTotals> {
    const totals: ContentTotals = { resources: new Map(), finalizers: new Map(), errors: [] };
    for (const resource of client.namespacedResources()) {
      const gvr = `${resource.group}/${resource.version}, Resource=${resource.plural}`;
      let items: ApiObject[];
      try {
        await client.deleteCollection(resource, name);
        items = (await client.list(resource, name)).items;
      } catch (error) {
        totals.errors.push(error instanceof Error ? error.message : String(error));
        continue;
      }
      if (items.length === 0) continue;
      totals.resources.set(`${resource.plural}.${resource.group}`, items.length);
      let held = false;
      for (const item of items) {
        for (const finalizer of item.metadata.finalizers ?? []) {
          totals.finalizers.set(finalizer, (totals.finalizers.get(finalizer) ?? 0) + 1);
          held = true;
        }
      }
      // Objects left without a finalizer should have gone: kube reports them as a failure.
      if (!held) totals.errors.push(`unexpected items still remain in namespace: ${name} for gvr: ${gvr}`);
    }
    return totals;
  }

  /**
   * Writes the pass's conditions to the namespace's status when they changed; answers the
   * namespace as it now is. A failed write is left for the next pass (kube logs it and goes on).
   */
  async function recordConditions(name: string, totals: ContentTotals): Promise<ApiObject | undefined> {
    const latest = await client.get(NAMESPACES, "", name);
    if (latest === undefined) return undefined;
    const status = isPlainObject(latest["status"]) ? latest["status"] : {};
    const current = Array.isArray(status["conditions"]) ? status["conditions"] : [];
    const conditions = namespaceConditions(current, totals, nowTimestamp());
    if (conditions === undefined) return latest;
    try {
      return await client.updateSubresource(NAMESPACES, "", name, "status", { ...latest, status: { ...status, conditions } });
    } catch {
      return await client.get(NAMESPACES, "", name);
    }
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
      const totals = await drain(name);
      const latest = await recordConditions(name, totals);
      if (totals.resources.size > 0 || totals.errors.length > 0) return resyncMs;
      if (latest === undefined) return;
      const finalizers = specFinalizers(latest).filter((finalizer) => finalizer !== options.finalizer);
      const spec = isPlainObject(latest["spec"]) ? latest["spec"] : {};
      await client.updateSubresource(NAMESPACES, "", name, "finalize", { ...latest, spec: { ...spec, finalizers } });
    },
  };
}
