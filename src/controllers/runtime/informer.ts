import type { ApiObject } from "../../api/object.js";
import type { ResourceRef } from "../../api/client.js";
import type { FeedChange, ObjectFeed } from "../../authz/feed.js";

/** Callbacks for one resource's changes. They run synchronously as the watch cache applies a change: enqueue, never block. */
export interface InformerHandlers {
  onAdd?(object: ApiObject): void;
  onUpdate?(object: ApiObject, previous: ApiObject): void;
  onDelete?(previous: ApiObject): void;
  /** The cache re-listed: the state may have jumped; read `list()` again. */
  onReset?(): void;
}

/**
 * A narrowed form of a resource's objects for the controllers that read only part of them (kube's
 * informer transform): an informer with a view keeps and hands out `project(object)` instead of
 * the decoded object, so an index of many large objects keeps only the fields read. Projections
 * may share parts with the object (both are read-only).
 */
export interface InformerView {
  /** Names the view: one informer per resource and view. */
  readonly name: string;
  project(object: ApiObject): ApiObject;
}

/**
 * One resource's objects as every controller sees them: a view over the registry's watch cache
 * (no list or watch of its own, so no periodic relist), with handlers fanned out from one feed
 * subscription. An informer asked for with `InformerFactory.indexed` keeps, while anyone listens,
 * the decoded objects by namespace (kube's indexer), so `get`, `list` and `listNamespace` decode
 * nothing and a namespace's objects cost only their own number; the others decode on each read
 * (the watch cache keeps JSON text, several times smaller than decoded objects). Objects handed
 * out may be shared: read-only, copy before changing one.
 */
export class SharedInformer {
  private readonly handlers = new Set<InformerHandlers>();
  private unsubscribe: (() => void) | undefined;
  /** namespace ("" for cluster scope) → name → object; kept while subscribed, when indexed. */
  private index: Map<string, Map<string, ApiObject>> | undefined;
  private indexed = false;

  constructor(
    readonly resource: ResourceRef,
    private readonly feed: ObjectFeed,
    private readonly view?: InformerView,
  ) {}

  /** The feed's objects, in this informer's view. */
  private *feedObjects(): Iterable<ApiObject> {
    const view = this.view;
    if (view === undefined) yield* this.feed.objects();
    else for (const object of this.feed.objects()) yield view.project(object);
  }

  list(): ApiObject[] {
    if (this.index === undefined) return [...this.feedObjects()];
    const out: ApiObject[] = [];
    for (const objects of this.index.values()) for (const object of objects.values()) out.push(object);
    return out;
  }

  /**
   * Every object with at least apiVersion, kind and the metadata `fields` filled in (kube's
   * metadata informer, narrowed): for readers of a few metadata fields, it spares decoding whole
   * objects. The objects of an indexed informer, or of a feed that cannot narrow, are whole.
   */
  listMetadata(fields: ReadonlySet<string>): ApiObject[] {
    if (this.index !== undefined || this.view !== undefined || this.feed.metadataObjects === undefined) return this.list();
    return [...this.feed.metadataObjects(fields)];
  }

  /** The objects of one namespace ("" = the cluster-scoped ones). */
  listNamespace(namespace: string): ApiObject[] {
    if (this.index === undefined) return [...this.feedObjects()].filter((object) => (object.metadata.namespace ?? "") === namespace);
    return [...(this.index.get(namespace)?.values() ?? [])];
  }

  get(namespace: string, name: string): ApiObject | undefined {
    if (this.index !== undefined) return this.index.get(namespace)?.get(name);
    const object = this.feed.get(namespace, name);
    return object === undefined || this.view === undefined ? object : this.view.project(object);
  }

  /** Adds handlers; returns their removal. The feed is followed while anyone listens. */
  addHandlers(handlers: InformerHandlers): () => void {
    this.handlers.add(handlers);
    if (this.unsubscribe === undefined) {
      const view = this.view;
      this.unsubscribe = this.feed.subscribe((change) => this.dispatch(view === undefined ? change : viewed(change, view)));
      if (this.indexed) this.rebuild();
    }
    return () => {
      this.handlers.delete(handlers);
      if (this.handlers.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
        this.index = undefined;
      }
    };
  }

  /** Keeps the decoded objects by namespace from now on (built at once when already followed). */
  keepIndex(): void {
    if (this.indexed) return;
    this.indexed = true;
    if (this.unsubscribe !== undefined) this.rebuild();
  }

  private rebuild(): void {
    const index = new Map<string, Map<string, ApiObject>>();
    for (const object of this.feedObjects()) place(index, object);
    this.index = index;
  }

  private dispatch(change: FeedChange): void {
    if (change.kind === "reset") {
      if (this.indexed) this.rebuild();
    } else if (this.index !== undefined) {
      if (change.kind === "delete") {
        const namespace = change.previous.metadata.namespace ?? "";
        const objects = this.index.get(namespace);
        objects?.delete(change.previous.metadata.name ?? "");
        if (objects?.size === 0) this.index.delete(namespace);
      } else place(this.index, change.object);
    }
    for (const handlers of this.handlers) {
      if (change.kind === "reset") handlers.onReset?.();
      else if (change.kind === "delete") handlers.onDelete?.(change.previous);
      else if (change.previous === undefined) handlers.onAdd?.(change.object);
      else handlers.onUpdate?.(change.object, change.previous);
    }
  }
}

/** A change with its objects in `view`. */
function viewed(change: FeedChange, view: InformerView): FeedChange {
  if (change.kind === "reset") return change;
  if (change.kind === "delete") return { kind: "delete", previous: view.project(change.previous) };
  return { kind: "set", object: view.project(change.object), previous: change.previous === undefined ? undefined : view.project(change.previous) };
}

function place(index: Map<string, Map<string, ApiObject>>, object: ApiObject): void {
  const namespace = object.metadata.namespace ?? "";
  let objects = index.get(namespace);
  if (objects === undefined) {
    objects = new Map();
    index.set(namespace, objects);
  }
  objects.set(object.metadata.name ?? "", object);
}

/** Hands out one SharedInformer per resource, for all controllers. Ask for them before the registry starts. */
export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer>();

  constructor(private readonly feedOf: (resource: ResourceRef) => ObjectFeed) {}

  /** The informer of `resource`, or of its objects in `view` (one per view name). */
  informer(resource: ResourceRef, view?: InformerView): SharedInformer {
    const id = informerId(resource, view);
    let informer = this.informers.get(id);
    if (informer === undefined) {
      informer = new SharedInformer(resource, this.feedOf(resource), view);
      this.informers.set(id, informer);
    }
    return informer;
  }

  /** The informer of `resource` (in `view`), keeping its objects by namespace (for `listNamespace` and cheap reads). */
  indexed(resource: ResourceRef, view?: InformerView): SharedInformer {
    const informer = this.informer(resource, view);
    informer.keepIndex();
    return informer;
  }

  /**
   * Drops the informers of a resource whose store was replaced or removed (a custom resource's
   * definition changed): the next ask follows the new store. Their handlers must be removed first.
   */
  forget(resource: ResourceRef): void {
    const id = informerId(resource);
    for (const key of [...this.informers.keys()]) if (key === id || key.startsWith(`${id}#`)) this.informers.delete(key);
  }
}

function informerId(resource: ResourceRef, view?: InformerView): string {
  const id = `${resource.group}/${resource.version}/${resource.plural}`;
  return view === undefined ? id : `${id}#${view.name}`;
}

/** `namespace/name`, or `name` for cluster-scoped objects: kube's work-queue key. */
export function objectKey(object: ApiObject): string {
  const namespace = object.metadata.namespace ?? "";
  return namespace === "" ? (object.metadata.name ?? "") : `${namespace}/${object.metadata.name ?? ""}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: "", name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
