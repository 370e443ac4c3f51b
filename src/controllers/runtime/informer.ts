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
  ) {}

  list(): ApiObject[] {
    if (this.index === undefined) return [...this.feed.objects()];
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
    if (this.index !== undefined || this.feed.metadataObjects === undefined) return this.list();
    return [...this.feed.metadataObjects(fields)];
  }

  /** The objects of one namespace ("" = the cluster-scoped ones). */
  listNamespace(namespace: string): ApiObject[] {
    if (this.index === undefined) return [...this.feed.objects()].filter((object) => (object.metadata.namespace ?? "") === namespace);
    return [...(this.index.get(namespace)?.values() ?? [])];
  }

  get(namespace: string, name: string): ApiObject | undefined {
    if (this.index === undefined) return this.feed.get(namespace, name);
    return this.index.get(namespace)?.get(name);
  }

  /** Adds handlers; returns their removal. The feed is followed while anyone listens. */
  addHandlers(handlers: InformerHandlers): () => void {
    this.handlers.add(handlers);
    if (this.unsubscribe === undefined) {
      this.unsubscribe = this.feed.subscribe((change) => this.dispatch(change));
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
    for (const object of this.feed.objects()) place(index, object);
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

  informer(resource: ResourceRef): SharedInformer {
    const id = informerId(resource);
    let informer = this.informers.get(id);
    if (informer === undefined) {
      informer = new SharedInformer(resource, this.feedOf(resource));
      this.informers.set(id, informer);
    }
    return informer;
  }

  /** The informer of `resource`, keeping its decoded objects by namespace (for `listNamespace` and cheap reads). */
  indexed(resource: ResourceRef): SharedInformer {
    const informer = this.informer(resource);
    informer.keepIndex();
    return informer;
  }

  /**
   * Drops the informer of a resource whose store was replaced or removed (a custom resource's
   * definition changed): the next ask follows the new store. Its handlers must be removed first.
   */
  forget(resource: ResourceRef): void {
    this.informers.delete(informerId(resource));
  }
}

function informerId(resource: ResourceRef): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
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
