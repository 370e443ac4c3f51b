import type { ApiClient, ServedResource } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { cloneObject, type ApiObject, type OwnerReference } from "../../api/object.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { FOREGROUND, type GraphNode, NODE_FIELDS, nodeOf, ORPHAN, OwnerGraph } from "./graph.js";

export interface GarbageCollectorOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** Reports an owner reference the GC ignores (kube's `OwnerRefInvalidNamespace` event). */
  readonly onInvalidOwner?: (dependent: GraphNode, owner: OwnerReference, message: string) => void;
  readonly workers?: number;
  /** A failed Event write (the Event is best effort, as kube's recorder). */
  readonly onEventError?: (error: unknown) => void;
  /**
   * Hears discovery changes (custom resources served or withdrawn, with their `<group>/<version>`s);
   * returns the removal. Without it the resource set is the one served at start.
   */
  readonly onResourcesChanged?: (listener: (groupVersions: ReadonlySet<string>) => void) => () => void;
}

type OwnerState = "solid" | "dangling" | "waiting";

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Sets the references (and finalizers), leaving the field out when empty as kube stores it. */
function withOwners(object: ApiObject, refs: OwnerReference[]): ApiObject {
  const next = cloneObject(object);
  if (refs.length > 0) next.metadata.ownerReferences = refs;
  else delete next.metadata.ownerReferences;
  return next;
}

function withoutFinalizer(object: ApiObject, finalizer: string): ApiObject {
  const next = cloneObject(object);
  const finalizers = (next.metadata.finalizers ?? []).filter((item) => item !== finalizer);
  if (finalizers.length > 0) next.metadata.finalizers = finalizers;
  else delete next.metadata.finalizers;
  return next;
}

const EVENTS = { group: "", version: "v1", plural: "events" };

/**
 * A Warning Event about `node` from the garbage collector, as kube's event recorder writes it:
 * in the object's namespace (`default` for a cluster-scoped one), named `<name>.<hex time>`.
 */
async function recordWarning(client: ApiClient, node: GraphNode, reason: string, message: string): Promise<void> {
  const now = new Date();
  const timestamp = `${now.toISOString().slice(0, 19)}Z`;
  const namespace = node.namespace === "" ? "default" : node.namespace;
  const apiVersion = node.resource.group === "" ? node.resource.version : `${node.resource.group}/${node.resource.version}`;
  await client.create(EVENTS, namespace, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${node.name}.${(BigInt(now.getTime()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n)).toString(16)}`, namespace },
    involvedObject: { apiVersion, kind: node.resource.kind, name: node.name, uid: node.uid, ...(node.namespace === "" ? {} : { namespace: node.namespace }) },
    reason,
    message,
    type: "Warning",
    source: { component: "garbage-collector-controller" },
    firstTimestamp: timestamp,
    lastTimestamp: timestamp,
    count: 1,
    reportingComponent: "garbage-collector-controller",
  });
}

function resourceId(resource: ServedResource): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
}

function isGone(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 404 || error.code === 409);
}

/**
 * kube's garbage collector over every served resource. It keeps an ownership graph from the
 * shared informers and works on object uids:
 * - an object whose owners are all gone (dangling) or waiting for their dependents is deleted
 *   (foreground when it has dependents of its own and an owner waits, so the chain waits too);
 *   with a live owner left, the gone and waiting references are removed instead;
 * - an owner deleted with `orphan` has the references to it removed from its dependents, then
 *   the finalizer;
 * - an owner deleted with `foregroundDeletion` gets its dependents deleted and keeps the finalizer
 *   until no dependent with `blockOwnerDeletion` is left.
 * Owners are resolved in the dependent's namespace; a cluster-scoped dependent naming a namespaced
 * owner is reported and never collected; an owner kind nobody serves keeps the dependent.
 * A dependent joining a foreground deletion gets `blockOwnerDeletion` cleared, so cycles end.
 * Everything is derived from stored state (finalizers, references), so a restart resumes a cascade.
 */
export function garbageCollector(options: GarbageCollectorOptions): QueueControllerSpec {
  const { client, informers } = options;
  const graph = new OwnerGraph();
  let resources = client.servedResources();
  const reported = new Set<string>();
  let queue: { add(key: string): void } | undefined;

  function resolve(ref: OwnerReference): ServedResource | undefined {
    const group = groupOf(ref.apiVersion);
    return resources.find((resource) => resource.group === group && resource.kind === ref.kind);
  }

  function current(node: GraphNode): ApiObject | undefined {
    const object = informers.informer(node.resource).get(node.namespace, node.name);
    return object?.metadata.uid === node.uid ? object : undefined;
  }

  /** kube's `OwnerRefInvalidNamespace` Warning Event on the dependent, once per reference. */
  function reportInvalid(dependent: GraphNode, ref: OwnerReference): void {
    const key = `${dependent.uid}/${ref.uid}`;
    if (reported.has(key)) return;
    reported.add(key);
    const message = `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace "${dependent.namespace}"`;
    options.onInvalidOwner?.(dependent, ref, message);
    void recordWarning(client, dependent, "OwnerRefInvalidNamespace", message).catch((error: unknown) => options.onEventError?.(error));
  }

  async function ownerState(dependent: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const resource = resolve(ref);
    if (resource === undefined) return "solid";
    if (resource.namespaced && dependent.namespace === "") {
      // A cluster-scoped dependent cannot have a namespaced owner: reported, never collected.
      reportInvalid(dependent, ref);
      return "solid";
    }
    const namespace = resource.namespaced ? dependent.namespace : "";
    const known = graph.get(ref.uid);
    let owner: ApiObject | undefined;
    if (known !== undefined && known.namespace === namespace && known.name === ref.name && known.resource.kind === ref.kind) {
      owner = current(known);
    }
    // Not in the graph (or the cache is behind): ask the store before calling it gone.
    owner ??= await client.get(resource, namespace, ref.name);
    if (owner === undefined || owner.metadata.uid !== ref.uid) {
      // The owner's uid lives in another namespace: the reference is absent here (kube collects the dependent) and reported.
      if (known !== undefined && known.namespace !== namespace && known.resource.namespaced) reportInvalid(dependent, ref);
      return "dangling";
    }
    const waiting = owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND);
    return waiting ? "waiting" : "solid";
  }

  /** Writes the object back; gone is fine, a conflict (the cache was behind) is retried with backoff. */
  async function write(node: GraphNode, object: ApiObject): Promise<void> {
    try {
      await client.updateSubresource(node.resource, node.namespace, node.name, "", object);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 404)) throw error;
    }
  }

  async function remove(node: GraphNode, policy: "Orphan" | "Foreground" | "Background"): Promise<void> {
    try {
      await client.delete(node.resource, node.namespace, node.name, { propagationPolicy: policy, preconditions: { uid: node.uid } });
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }

  async function dropFinalizer(node: GraphNode, object: ApiObject, finalizer: string): Promise<void> {
    await write(node, withoutFinalizer(object, finalizer));
  }

  async function orphanDependents(owner: GraphNode, object: ApiObject): Promise<void> {
    for (const dependent of graph.dependents(owner.uid)) {
      const latest = current(dependent);
      if (latest === undefined) continue;
      await write(
        dependent,
        withOwners(
          latest,
          (latest.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.uid),
        ),
      );
    }
    await dropFinalizer(owner, object, ORPHAN);
  }

  async function waitForDependents(owner: GraphNode, object: ApiObject): Promise<void> {
    const blocking = graph
      .dependents(owner.uid)
      .filter((dependent) => dependent.owners.some((ref) => ref.uid === owner.uid && ref.blockOwnerDeletion === true));
    if (blocking.length === 0) return dropFinalizer(owner, object, FOREGROUND);
    for (const dependent of graph.dependents(owner.uid)) if (!dependent.deleting) queue?.add(dependent.uid);
  }

  async function attemptToDelete(node: GraphNode, object: ApiObject): Promise<void> {
    const solid: OwnerReference[] = [];
    const unwanted: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of node.owners) {
      const state = await ownerState(node, ref);
      if (state === "solid") solid.push(ref);
      else unwanted.push(ref);
      if (state === "waiting") waiting.push(ref);
    }
    if (solid.length > 0) {
      if (unwanted.length === 0) return;
      const drop = new Set(unwanted.map((ref) => ref.uid));
      return write(
        node,
        withOwners(
          object,
          (object.metadata.ownerReferences ?? []).filter((ref) => !drop.has(ref.uid)),
        ),
      );
    }
    if (waiting.length > 0 && graph.dependents(node.uid).length > 0) {
      // Joins the owner's foreground deletion; no longer blocks the owner (this ends cycles).
      const waitingUids = new Set(waiting.map((ref) => ref.uid));
      if (node.owners.some((ref) => waitingUids.has(ref.uid) && ref.blockOwnerDeletion === true)) {
        await write(
          node,
          withOwners(
            object,
            (object.metadata.ownerReferences ?? []).map((ref) => (waitingUids.has(ref.uid) ? { ...ref, blockOwnerDeletion: false } : ref)),
          ),
        );
      }
      return remove(node, "Foreground");
    }
    const finalizers = object.metadata.finalizers ?? [];
    return remove(node, finalizers.includes(ORPHAN) ? "Orphan" : finalizers.includes(FOREGROUND) ? "Foreground" : "Background");
  }

  function track(resource: ServedResource, object: ApiObject): void {
    const node = nodeOf(resource, object);
    if (node === undefined || queue === undefined) return;
    const change = graph.set(node);
    if (change.ownersChanged || change.deletionChanged) queue.add(node.uid);
    // A foreground deletion starts: its dependents are collected.
    if (node.foreground && change.previous?.foreground !== true) for (const dependent of graph.dependents(node.uid)) queue.add(dependent.uid);
    // A dependent changed: an owner waiting on it looks again.
    if (change.ownersChanged)
      for (const ref of [...(change.previous?.owners ?? []), ...node.owners]) if (graph.get(ref.uid)?.foreground === true) queue.add(ref.uid);
  }

  function untrack(object: ApiObject): void {
    const uid = object.metadata.uid;
    if (uid !== undefined) untrackUid(uid);
  }

  function untrackUid(uid: string): void {
    if (queue === undefined) return;
    const node = graph.remove(uid);
    for (const dependent of graph.dependents(uid)) queue.add(dependent.uid);
    for (const ref of node?.owners ?? []) if (graph.get(ref.uid)?.foreground === true) queue.add(ref.uid);
  }

  function rebuild(): void {
    graph.clear();
    for (const resource of resources) for (const object of informers.informer(resource).listMetadata(NODE_FIELDS)) track(resource, object);
  }

  return {
    name: "garbagecollector",
    workers: options.workers ?? 4,
    watch(keys) {
      queue = keys;
      const following = new Map<string, { resource: ServedResource; off: () => void }>();
      const follow = (resource: ServedResource): void => {
        const informer = informers.informer(resource);
        following.set(resourceId(resource), {
          resource,
          off: informer.addHandlers({
            onAdd: (object) => track(resource, object),
            onUpdate: (object) => track(resource, object),
            onDelete: (previous) => untrack(previous),
            onReset: () => rebuild(),
          }),
        });
      };
      for (const resource of resources) follow(resource);
      // Discovery changed: follow what is served now (custom resources added after start included).
      const offDiscovery = options.onResourcesChanged?.((groupVersions) => {
        resources = client.servedResources();
        const served = new Set(resources.map(resourceId));
        for (const [id, entry] of following) {
          if (served.has(id) && !groupVersions.has(`${entry.resource.group}/${entry.resource.version}`)) continue;
          entry.off();
          following.delete(id);
          informers.forget(entry.resource);
          // Withdrawn: its objects leave the graph (their dependents are looked at again and, the kind unknown, kept).
          if (!served.has(id)) for (const node of [...graph.all()]) if (resourceId(node.resource) === id) untrackUid(node.uid);
        }
        for (const resource of resources) {
          if (following.has(resourceId(resource))) continue;
          follow(resource);
          for (const object of informers.informer(resource).listMetadata(NODE_FIELDS)) track(resource, object);
        }
      });
      return () => {
        offDiscovery?.();
        for (const entry of following.values()) entry.off();
        following.clear();
        queue = undefined;
      };
    },
    *initialKeys() {
      // The graph is built as the informers are listed; every object with owners or GC finalizers is looked at once.
      graph.clear();
      for (const resource of resources) {
        for (const object of informers.informer(resource).listMetadata(NODE_FIELDS)) {
          const node = nodeOf(resource, object);
          if (node === undefined) continue;
          graph.set(node);
        }
      }
      for (const node of graph.all()) if (node.owners.length > 0 || node.foreground || node.orphan) yield node.uid;
    },
    async reconcile(uid) {
      const node = graph.get(uid);
      if (node === undefined) return;
      const object = current(node);
      if (object === undefined) return;
      if (node.orphan) return orphanDependents(node, object);
      if (node.foreground) return waitForDependents(node, object);
      if (node.deleting || node.owners.length === 0) return;
      return attemptToDelete(node, object);
    },
  };
}
