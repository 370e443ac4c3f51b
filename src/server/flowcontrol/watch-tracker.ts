import type { RequestInfo } from "../../request/request-info.js";

/** What a watch is interested in: every object of a resource, those of one namespace, or one object. */
interface WatchScope {
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

function scopeKey(scope: WatchScope): string {
  return `${scope.group}\u0000${scope.resource}\u0000${scope.namespace}\u0000${scope.name}`;
}

/** A watch's object name from `fieldSelector=metadata.name=<name>` (kube's RequestInfo reads it the same way). */
function watchedName(info: Extract<RequestInfo, { kind: "resource" }>, query: URLSearchParams): string {
  if (info.name !== "") return info.name;
  const selector = query.get("fieldSelector") ?? "";
  const match = /^metadata\.name==?([^,]*)$/.exec(selector);
  return match?.[1] ?? "";
}

/**
 * Counts open watches by what they watch, as kube's APF watch tracker: the work estimate of a
 * mutating request depends on how many watchers its change will be sent to.
 */
export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** Registers an open watch; the returned function forgets it (call once, when its stream ends). */
  register(info: RequestInfo, query: URLSearchParams): () => void {
    if (info.kind !== "resource" || info.verb !== "watch") return () => {};
    const key = scopeKey({ group: info.group, resource: info.resource, namespace: info.namespace, name: watchedName(info, query) });
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  /**
   * Watches a change to the request's object may be sent to: those of every object of its
   * resource, those of its namespace, and those of the object itself. Reads count none.
   */
  interested(info: RequestInfo): number {
    if (info.kind !== "resource" || this.counts.size === 0) return 0;
    if (info.verb === "get" || info.verb === "list" || info.verb === "watch") return 0;
    const scope = { group: info.group, resource: info.resource, namespace: "", name: "" };
    let count = this.counts.get(scopeKey(scope)) ?? 0;
    if (info.namespace !== "") count += this.counts.get(scopeKey({ ...scope, namespace: info.namespace })) ?? 0;
    if (info.name !== "") count += this.counts.get(scopeKey({ ...scope, namespace: info.namespace, name: info.name })) ?? 0;
    return count;
  }
}
