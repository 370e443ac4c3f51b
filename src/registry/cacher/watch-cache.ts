import { compareKeys } from "../../storage/util.js";
import type { WatchEvent } from "../../storage/interface.js";
import { atRevision, toCachedObject, type CachedObject, type ResourceCodec } from "./cached-object.js";
import { CacheWatcher, filterMatches, type EventEncoder, type WatchEventType, type WatchFilter } from "./cache-watcher.js";

/** One change in the window. Encoded lines are made once, on first need, for every watcher. */
class CacheEvent {
  /** Encoded lines by view; made on first need (most events in the window are never replayed). */
  private lines: Map<string, string> | undefined;
  private previousJson: string | undefined;

  constructor(
    readonly type: "ADDED" | "MODIFIED" | "DELETED",
    readonly revision: number,
    readonly key: string,
    readonly current: CachedObject | undefined,
    readonly previous: CachedObject | undefined,
  ) {}

  /** The previous object stamped with this event's revision (DELETED events carry it). */
  previousAtRevision(): string {
    this.previousJson ??= this.previous === undefined ? "null" : atRevision(this.previous, this.revision);
    return this.previousJson;
  }

  /** What a watcher with `filter` sees of this event: kube's rule for selector transitions. */
  viewFor(filter: WatchFilter): EventView | undefined {
    const now = this.current !== undefined && filterMatches(filter, this.current);
    const before = this.previous !== undefined && filterMatches(filter, this.previous);
    if (now) return { type: before ? "MODIFIED" : "ADDED", which: "current" };
    if (before) return { type: "DELETED", which: "previous" };
    return undefined;
  }

  json(which: EventView["which"]): string {
    return which === "current" ? this.current?.json ?? "null" : this.previousAtRevision();
  }

  /** The line for a view: JSON lines are memoised for all watchers; other encoders run per watcher. */
  line(view: EventView, encode: EventEncoder | undefined): string {
    if (encode !== undefined) return encode(view.type, this.json(view.which));
    const memoKey = `${view.type}:${view.which}`;
    this.lines ??= new Map();
    let line = this.lines.get(memoKey);
    if (line === undefined) {
      line = jsonLine(view.type, this.json(view.which));
      this.lines.set(memoKey, line);
    }
    return line;
  }
}

interface EventView {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly which: "current" | "previous";
}

function jsonLine(type: WatchEventType, json: string): string {
  return `{"type":"${type}","object":${json}}\n`;
}

export interface WatchCacheOptions {
  /** Events kept for resuming watches, at most. */
  readonly windowSize: number;
  /** Events older than this are dropped from the window even when it is not full. */
  readonly windowMs: number;
  /** Live events a watcher may have queued before it is ended as too slow. */
  readonly watcherQueueLimit: number;
  readonly now?: () => number;
}

/** A change as the cache applied it, for in-process followers (the authorization indexes). */
export type CacheChange =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED"; readonly current: CachedObject | undefined; readonly previous: CachedObject | undefined }
  | { readonly type: "RESET" };

export type WatchStart = { readonly kind: "state" } | { readonly kind: "revision"; readonly revision: number };

/**
 * The cached state of one resource, kept current by the Cacher: objects in key order, a bounded
 * window of recent events, and the watchers to fan events out to.
 */
export class WatchCache {
  readonly prefix: string;
  readonly codec: ResourceCodec;
  private readonly options: WatchCacheOptions;
  private readonly objects = new Map<string, CachedObject>();
  private keys: string[] = [];
  private window: CacheEvent[] = [];
  private windowTimes: number[] = [];
  private windowHead = 0;
  /** Every event with a revision above this one is in the window. */
  private windowStart = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private readonly listeners = new Set<(change: CacheChange) => void>();

  constructor(prefix: string, codec: ResourceCodec, options: WatchCacheOptions) {
    this.prefix = prefix;
    this.codec = codec;
    this.options = options;
  }

  /**
   * Calls `listener` synchronously for every change applied and after every reset, before the
   * Cacher counts the change's revision as reached; returns the unsubscribe function.
   */
  onChange(listener: (change: CacheChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Replaces the state with a list read at `revision` (start-up, or a re-list after an error). */
  reset(entries: readonly { key: string; value: string; modRevision: number }[], revision: number): void {
    this.objects.clear();
    for (const entry of entries) this.objects.set(entry.key, toCachedObject(this.codec, entry.key, entry.value, entry.modRevision));
    this.keys = [...this.objects.keys()].sort(compareKeys);
    this.window = [];
    this.windowTimes = [];
    this.windowHead = 0;
    this.windowStart = revision;
    for (const watcher of this.watchers) watcher.end("closed");
    this.watchers.clear();
    for (const listener of this.listeners) listener({ type: "RESET" });
  }

  /** Applies one committed change and fans it out; the Cacher advances the revision after. */
  apply(change: WatchEvent): void {
    const previous = this.objects.get(change.key);
    let current: CachedObject | undefined;
    if (change.value === undefined) {
      if (previous === undefined) return;
      this.objects.delete(change.key);
      this.keys.splice(this.indexOf(change.key), 1);
    } else {
      current = toCachedObject(this.codec, change.key, change.value, change.revision);
      this.objects.set(change.key, current);
      if (previous === undefined) this.keys.splice(this.indexOf(change.key), 0, change.key);
    }
    const type = current === undefined ? "DELETED" : previous === undefined ? "ADDED" : "MODIFIED";
    const event = new CacheEvent(type, change.revision, change.key, current, previous);
    for (const listener of this.listeners) listener({ type, current, previous });
    this.remember(event);
    for (const watcher of this.watchers) {
      if (watcher.isEnded) {
        this.watchers.delete(watcher);
        continue;
      }
      if (change.revision <= watcher.startRevision) continue;
      const view = event.viewFor(watcher.filter);
      if (view === undefined) continue;
      watcher.push(event.line(view, watcher.encode), change.revision);
      if (watcher.isEnded) this.watchers.delete(watcher);
    }
  }

  private remember(event: CacheEvent): void {
    const now = (this.options.now ?? Date.now)();
    this.window.push(event);
    this.windowTimes.push(now);
    while (this.window.length - this.windowHead > this.options.windowSize || (this.windowHead < this.window.length - 1 && now - (this.windowTimes[this.windowHead] ?? now) > this.options.windowMs)) {
      this.windowStart = this.window[this.windowHead]?.revision ?? this.windowStart;
      this.windowHead++;
    }
    // Compact the arrays once the dropped head dominates.
    if (this.windowHead > 1024 && this.windowHead * 2 > this.window.length) {
      this.window = this.window.slice(this.windowHead);
      this.windowTimes = this.windowTimes.slice(this.windowHead);
      this.windowHead = 0;
    }
  }

  /** Position of key in the sorted keys (where it is, or where it would go). */
  private indexOf(key: string): number {
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys(this.keys[middle] ?? "", key) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * Objects under `prefix` after `startAfter`, passing `matches`, at most `limit` (0 = all).
   * `remaining` counts the keys under the prefix after the last one returned.
   */
  list(prefix: string, options: { startAfter?: string; limit: number; matches?: (object: CachedObject) => boolean }): { items: CachedObject[]; remaining: number; lastKey: string | undefined } {
    const items: CachedObject[] = [];
    let index = options.startAfter === undefined ? this.indexOf(prefix) : this.indexOf(options.startAfter);
    if (options.startAfter !== undefined && this.keys[index] === options.startAfter) index++;
    let lastKey: string | undefined;
    for (; index < this.keys.length; index++) {
      const key = this.keys[index] ?? "";
      if (!key.startsWith(prefix)) break;
      if (options.limit > 0 && items.length >= options.limit) break;
      lastKey = key;
      const object = this.objects.get(key);
      if (object === undefined || (options.matches !== undefined && !options.matches(object))) continue;
      items.push(object);
    }
    let remaining = 0;
    if (options.limit > 0) {
      const end = this.upperBound(prefix);
      remaining = Math.max(0, end - index);
    }
    return { items, remaining, lastKey };
  }

  /** Index just past the last key under prefix. */
  private upperBound(prefix: string): number {
    let low = this.indexOf(prefix);
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.keys[middle] ?? "").startsWith(prefix)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  get(key: string): CachedObject | undefined {
    return this.objects.get(key);
  }

  /** The oldest revision a watch can resume from without a gap. */
  get oldestResumableRevision(): number {
    return this.windowStart;
  }

  /**
   * Starts a watcher. `state`: the current objects as ADDED, then changes (the caller made sure
   * the cache is current). `revision`: changes after it, replayed from the window; undefined
   * when the revision is older than the window (the caller answers 410).
   * Registration and the backlog are taken in one synchronous step, so nothing is missed.
   */
  watch(filter: WatchFilter, start: WatchStart, currentRevision: number, options: { encode?: EventEncoder; initialEventsEnd?: string }): CacheWatcher | undefined {
    const encode = options.encode ?? jsonLine;
    if (start.kind === "revision" && start.revision < this.windowStart) return undefined;
    const watcher = new CacheWatcher({ filter, limit: this.options.watcherQueueLimit, startRevision: start.kind === "state" ? currentRevision : Math.max(start.revision, this.windowStart), encode: options.encode });
    if (start.kind === "state") {
      for (const object of this.list(filter.prefix, { limit: 0, matches: (candidate) => filterMatches(filter, candidate) }).items) watcher.pushBacklog(encode("ADDED", object.json));
      if (options.initialEventsEnd !== undefined) watcher.pushBacklog(options.initialEventsEnd);
    } else {
      for (let index = this.firstEventAfter(start.revision); index < this.window.length; index++) {
        const event = this.window[index];
        if (event === undefined) continue;
        const view = event.viewFor(filter);
        if (view !== undefined) watcher.pushBacklog(event.line(view, options.encode));
        watcher.lastRevision = event.revision;
      }
    }
    this.watchers.add(watcher);
    return watcher;
  }

  private firstEventAfter(revision: number): number {
    let low = this.windowHead;
    let high = this.window.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.window[middle]?.revision ?? 0) <= revision) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Ends every watcher (server stop). */
  closeWatchers(): void {
    for (const watcher of this.watchers) watcher.end("closed");
    this.watchers.clear();
  }
}
