import { compareKeys } from "../../storage/util.js";
import type { WatchEvent } from "../../storage/interface.js";
import { atRevision, toCachedObject, type CachedObject, type ResourceCodec } from "./cached-object.js";
import { CacheWatcher, filterMatches, type EventEncoder, type SharedEncoder, type WatchEventType, type WatchFilter } from "./cache-watcher.js";

/** A watcher's encoding: JSON lines (undefined), a shared encoding, or its own encoder. */
type Encoding = EventEncoder | SharedEncoder | undefined;

/** One change in the window. Encoded lines are made once, on first need, for every watcher. */
class CacheEvent {
  /** JSON lines as UTF-8, by view type (the type decides which object a view shows); made on first need. */
  private added: Uint8Array | undefined;
  private modified: Uint8Array | undefined;
  private deleted: Uint8Array | undefined;
  private previousJson: string | undefined;
  /** Shared encodings' bytes, by encoding key and view type; made on first need. */
  private shared: Map<string, Uint8Array> | undefined;

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
    if (now) return before ? MODIFIED_VIEW : ADDED_VIEW;
    if (before) return DELETED_VIEW;
    return undefined;
  }

  json(which: EventView["which"]): string {
    return which === "current" ? (this.current?.json ?? "null") : this.previousAtRevision();
  }

  /**
   * The line for a view as bytes: a JSON line or a shared encoding (protobuf frames) is made once
   * and the same bytes go to every watcher and every replay; another encoder (Tables, partial
   * metadata) runs per call.
   */
  line(view: EventView, encode: Encoding): Uint8Array {
    if (typeof encode === "function") return toBytes(encode(view.type, this.json(view.which)));
    if (encode !== undefined) {
      const key = `${encode.key}\u0000${view.type}`;
      this.shared ??= new Map();
      let bytes = this.shared.get(key);
      if (bytes === undefined) {
        bytes = toBytes(encode.encode(view.type, this.json(view.which), view.which === "current" ? this.current : undefined));
        this.shared.set(key, bytes);
      }
      return bytes;
    }
    switch (view.type) {
      case "ADDED":
        return (this.added ??= Buffer.from(jsonLine("ADDED", this.json(view.which))));
      case "MODIFIED":
        return (this.modified ??= Buffer.from(jsonLine("MODIFIED", this.json(view.which))));
      case "DELETED":
        return (this.deleted ??= Buffer.from(jsonLine("DELETED", this.json(view.which))));
    }
  }
}

interface EventView {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly which: "current" | "previous";
}

const ADDED_VIEW: EventView = { type: "ADDED", which: "current" };
const MODIFIED_VIEW: EventView = { type: "MODIFIED", which: "current" };
const DELETED_VIEW: EventView = { type: "DELETED", which: "previous" };

/**
 * Watchers with the same filter and encoding: each event is matched and encoded once for all of
 * them, and the events of one flush become one chunk they all share.
 */
class WatcherGroup {
  readonly watchers = new Set<CacheWatcher>();
  /** Lines of the events applied since the last flush, and their revisions. */
  lines: Uint8Array[] = [];
  revisions: number[] = [];

  constructor(
    readonly key: string,
    readonly filter: WatchFilter,
    readonly encode: Encoding,
  ) {}
}

function toBytes(line: string | Uint8Array): Uint8Array {
  return typeof line === "string" ? Buffer.from(line) : line;
}

/** Watchers whose filters serialise alike (and share an encoding) share a group; a watcher with its own encoder has its own. */
function groupKey(filter: WatchFilter, encode: Encoding, unique: number): string {
  if (typeof encode === "function") return `#${unique}`;
  return `${encode === undefined ? "" : `${encode.key}\u0000`}${filter.prefix}\u0000${filter.key ?? ""}\u0000${JSON.stringify(filter.labelSelector)}\u0000${JSON.stringify(filter.fieldSelector)}`;
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
  codec: ResourceCodec;
  private readonly options: WatchCacheOptions;
  private readonly objects = new Map<string, CachedObject>();
  private keys: string[] = [];
  private window: CacheEvent[] = [];
  private windowTimes: number[] = [];
  private windowHead = 0;
  /** Every event with a revision above this one is in the window. */
  private windowStart = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private readonly groups = new Map<string, WatcherGroup>();
  private groupSequence = 0;
  /** Groups with lines not yet handed to their watchers. */
  private dirty: WatcherGroup[] = [];
  private flushScheduled = false;
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
    this.closeWatchers();
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
    for (const group of this.groups.values()) {
      const view = event.viewFor(group.filter);
      if (view === undefined) continue;
      if (group.lines.length === 0) this.dirty.push(group);
      group.lines.push(event.line(view, group.encode));
      group.revisions.push(change.revision);
    }
    if (this.dirty.length > 0 && !this.flushScheduled) {
      // Not at once: the writer is answered first, and the events of every write committed until
      // then go out together, one write per watcher. A timer rather than setImmediate: it fires
      // at the start of the next loop turn, before that turn reads new requests; an immediate
      // would run in the phase of the store's batched commit, ahead of it, and every write would
      // wait behind the fan-out.
      this.flushScheduled = true;
      setTimeout(this.scheduledFlush, 0);
    }
  }

  private readonly scheduledFlush = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /**
   * Hands every watcher the events applied since the last flush, as one chunk shared by its
   * group. Runs after each turn that applied events, and before anything that must follow them
   * in a stream (a BOOKMARK, the end).
   */
  flush(): void {
    const dirty = this.dirty;
    if (dirty.length === 0) return;
    this.dirty = [];
    for (const group of dirty) {
      const { lines, revisions } = group;
      group.lines = [];
      group.revisions = [];
      if (group.watchers.size === 0) continue;
      const chunk = lines.length === 1 ? (lines[0] as Uint8Array) : Buffer.concat(lines);
      const first = revisions[0] ?? 0;
      for (const watcher of group.watchers) {
        if (watcher.liveAfter < first) {
          watcher.deliver(chunk, lines.length);
          continue;
        }
        // Registered during this turn: only the events after its start are its own.
        const own = lines.filter((_, index) => (revisions[index] ?? 0) > watcher.liveAfter);
        if (own.length > 0) watcher.deliver(Buffer.concat(own), own.length);
      }
    }
  }

  private remember(event: CacheEvent): void {
    const now = (this.options.now ?? Date.now)();
    this.window.push(event);
    this.windowTimes.push(now);
    while (
      this.window.length - this.windowHead > this.options.windowSize ||
      (this.windowHead < this.window.length - 1 && now - (this.windowTimes[this.windowHead] ?? now) > this.options.windowMs)
    ) {
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
  list(
    prefix: string,
    options: { startAfter?: string; limit: number; matches?: (object: CachedObject) => boolean },
  ): { items: CachedObject[]; remaining: number; lastKey: string | undefined } {
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

  /**
   * Decodes every held object again with `codec` (a custom resource's definition changed: new
   * structural defaults, selectable fields). Watchers stay; past events keep their old form.
   */
  recode(codec: ResourceCodec): void {
    this.codec = codec;
    for (const [key, object] of this.objects) this.objects.set(key, toCachedObject(codec, key, object.json, object.revision));
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
  watch(
    filter: WatchFilter,
    start: WatchStart,
    currentRevision: number,
    options: { encode?: EventEncoder | SharedEncoder; initialEventsEnd?: string | Uint8Array },
  ): CacheWatcher | undefined {
    const given = options.encode;
    const encode: EventEncoder =
      given === undefined ? jsonLine : typeof given === "function" ? given : (type, json, source) => given.encode(type, json, source);
    if (start.kind === "revision" && start.revision < this.windowStart) return undefined;
    const startRevision = start.kind === "state" ? currentRevision : Math.max(start.revision, this.windowStart);
    const key = groupKey(filter, options.encode, ++this.groupSequence);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = new WatcherGroup(key, filter, options.encode);
      this.groups.set(key, group);
    }
    const joined = group;
    const watcher = new CacheWatcher({
      limit: this.options.watcherQueueLimit,
      startRevision,
      // Everything applied so far (up to currentRevision) is in the backlog or before the start.
      liveAfter: Math.max(startRevision, currentRevision),
      onEnd: (ended) => this.remove(ended, joined),
    });
    if (start.kind === "state") {
      for (const object of this.list(filter.prefix, { limit: 0, matches: (candidate) => filterMatches(filter, candidate) }).items)
        watcher.pushBacklog(encode("ADDED", object.json, object));
      if (options.initialEventsEnd !== undefined) watcher.pushBacklog(options.initialEventsEnd);
    } else {
      for (let index = this.firstEventAfter(start.revision); index < this.window.length; index++) {
        const event = this.window[index];
        if (event === undefined) continue;
        const view = event.viewFor(filter);
        if (view !== undefined) watcher.pushBacklog(event.line(view, options.encode));
      }
    }
    this.watchers.add(watcher);
    group.watchers.add(watcher);
    return watcher;
  }

  private remove(watcher: CacheWatcher, group: WatcherGroup): void {
    this.watchers.delete(watcher);
    group.watchers.delete(watcher);
    if (group.watchers.size === 0 && this.groups.get(group.key) === group) this.groups.delete(group.key);
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

  /** Ends every watcher after the events already applied (server stop, a re-list). */
  closeWatchers(): void {
    this.flush();
    for (const watcher of [...this.watchers]) watcher.end("closed");
    this.watchers.clear();
    this.groups.clear();
  }
}
