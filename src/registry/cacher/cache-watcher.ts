import type { FieldRequirement, LabelRequirement } from "../../api/selector.js";
import { matchesFields, matchesLabels } from "../../api/selector.js";
import { cachedField, type CachedObject } from "./cached-object.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** Which objects a watcher wants: a key prefix (namespace), optionally one key, and selectors. */
export interface WatchFilter {
  readonly prefix: string;
  readonly key?: string;
  readonly labelSelector: readonly LabelRequirement[];
  readonly fieldSelector: readonly FieldRequirement[];
}

export function filterMatches(filter: WatchFilter, object: CachedObject): boolean {
  if (filter.key !== undefined ? object.key !== filter.key : !object.key.startsWith(filter.prefix)) return false;
  if (!matchesLabels(filter.labelSelector, object.labels)) return false;
  return filter.fieldSelector.length === 0 || matchesFields(filter.fieldSelector, (field) => cachedField(object, field));
}

/** Encodes one event for this watcher's representation. JSON watchers share the event's memo. */
export type EventEncoder = (type: WatchEventType, json: string) => string;

/**
 * A watcher's outgoing stream: a backlog (initial state or replay, unbounded but finite) then
 * live events, bounded by `limit`. A watcher whose live queue overflows is ended: it cannot keep
 * up, and the client resumes from the last version it saw, as with kube's watch cache.
 * Lines are handed out in batches so a burst costs one write, not one per event.
 */
export class CacheWatcher {
  readonly filter: WatchFilter;
  readonly encode: EventEncoder | undefined;
  private readonly limit: number;
  private backlog: string[] = [];
  private queue: string[] = [];
  private queued = 0;
  private wake: (() => void) | undefined;
  /** Set by `interrupt()`: the next wait returns [] once (bookmark tick, deadline, abort). */
  private interrupted = false;
  private ended = false;
  /** Why the stream ended, for the caller's logs and tests. */
  endReason: "closed" | "overflow" | undefined;
  /** Revision of the last event handed to this watcher (for bookmarks). */
  lastRevision: number;
  /** Live events at or below this revision are not for this watcher (it starts after them). */
  readonly startRevision: number;

  constructor(options: { filter: WatchFilter; limit: number; startRevision: number; encode?: EventEncoder }) {
    this.filter = options.filter;
    this.limit = options.limit;
    this.encode = options.encode;
    this.lastRevision = options.startRevision;
    this.startRevision = options.startRevision;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Adds initial or replayed lines, ahead of live ones; not counted against the limit. */
  pushBacklog(line: string): void {
    this.backlog.push(line);
    this.notify();
  }

  /** Adds a live line; ends the watcher when its queue is over the limit. */
  push(line: string, revision: number): void {
    if (this.ended) return;
    if (this.queued >= this.limit) {
      this.end("overflow");
      return;
    }
    this.queue.push(line);
    this.queued++;
    if (revision > this.lastRevision) this.lastRevision = revision;
    this.notify();
  }

  end(reason: "closed" | "overflow"): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.notify();
  }

  /**
   * Makes a pending or the next `next()` return [] after any queued lines: how the stream's
   * timers and abort signals wake it, with listeners registered once per watch (racing a
   * never-settling promise on every wait would leak a reaction per event).
   */
  interrupt(): void {
    this.interrupted = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Lines ready now, without waiting. */
  takePending(): string[] {
    const batch = [...this.backlog, ...this.queue];
    this.backlog = [];
    this.queue = [];
    this.queued = 0;
    return batch;
  }

  /** Waits for lines; undefined once ended and drained; [] once after `interrupt()`. */
  async next(): Promise<string[] | undefined> {
    for (;;) {
      if (this.backlog.length > 0) {
        const batch = this.backlog;
        this.backlog = [];
        return batch;
      }
      if (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        this.queued = 0;
        return batch;
      }
      if (this.ended) return undefined;
      if (this.interrupted) {
        this.interrupted = false;
        return [];
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

}
