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
 * subscription.
 */
export class SharedInformer {
  private readonly handlers = new Set<InformerHandlers>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly resource: ResourceRef,
    private readonly feed: ObjectFeed,
  ) {}

  list(): ApiObject[] {
    return [...this.feed.objects()];
  }

  get(namespace: string, name: string): ApiObject | undefined {
    return this.feed.get(namespace, name);
  }

  /** Adds handlers; returns their removal. The feed is followed while anyone listens. */
  addHandlers(handlers: InformerHandlers): () => void {
    this.handlers.add(handlers);
    this.unsubscribe ??= this.feed.subscribe((change) => this.dispatch(change));
    return () => {
      this.handlers.delete(handlers);
      if (this.handlers.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
      }
    };
  }

  private dispatch(change: FeedChange): void {
    for (const handlers of this.handlers) {
      if (change.kind === "reset") handlers.onReset?.();
      else if (change.kind === "delete") handlers.onDelete?.(change.previous);
      else if (change.previous === undefined) handlers.onAdd?.(change.object);
      else handlers.onUpdate?.(change.object, change.previous);
    }
  }
}

/** Hands out one SharedInformer per resource, for all controllers. Ask for them before the registry starts. */
export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer>();

  constructor(private readonly feedOf: (resource: ResourceRef) => ObjectFeed) {}

  informer(resource: ResourceRef): SharedInformer {
    const id = `${resource.group}/${resource.version}/${resource.plural}`;
    let informer = this.informers.get(id);
    if (informer === undefined) {
      informer = new SharedInformer(resource, this.feedOf(resource));
      this.informers.set(id, informer);
    }
    return informer;
  }
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
