import type { ApiObject } from "../../api/object.js";
import type { WatchEvent } from "../../storage/interface.js";
import { atRevision, decodeToCache, toCachedObject, type CachedObject, type ResourceCodec } from "./cached-object.js";
import { CacheWatcher, filterMatches, type EventEncoder, type SharedEncoder, type WatchEventType, type WatchFilter } from "./cache-watcher.js";
import { CacheObjects, countAfter, type ObjectTree, readPage } from "./cache-objects.js";
import { WatcherIndex } from "./watcher-index.js";

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
  /**
   * The objects' JSON the window may hold, in bytes (the newest event is always kept): a resource
   * of large objects (CustomResourceDefinitions of hundreds of KB) keeps fewer events, as kube's
   * window keeps a count rather than every change of the last minutes. A watch from before the
   * window is told 410 Gone and lists again. Unbounded when absent.
   */
  readonly windowBytes?: number;
  /** Live events a watcher may have queued before it is ended as too slow. */
  readonly watcherQueueLimit: number;
  /** Size of the live events a watcher may have queued (a client that stopped reading); unbounded when absent. */
  readonly watcherQueueBytes?: number;
  readonly now?: () => number;
  /** Told of the cache's activity (kube's watch-cache metrics); per resource by its storage prefix. */
  readonly metrics?: WatchCacheMetrics;
}

/**
 * What a watch cache reports, each call naming the cache by its storage prefix. Calls are made
 * synchronously on the cache's hot paths: implementations only count.
 */
export interface WatchCacheMetrics {
  /** A cache was created that keeps at most `events` events for resuming watches. */
  capacity(prefix: string, events: number): void;
  /** One change applied from storage. */
  received(prefix: string): void;
  /** One change handed to at least one watcher. */
  dispatched(prefix: string): void;
  /** `count` initial events (the current state) sent to a watch starting without a revision. */
  initEvents(prefix: string, count: number): void;
  /** A watcher ended for not keeping up with its events. */
  terminated(prefix: string): void;
  /** One event line of `bytes` bytes handed to `watchers` watchers (kube's `apiserver_watch_events_total`/`_sizes`). */
  sent?(prefix: string, bytes: number, watchers: number): void;
}

/** A change as the cache applied it, for in-process followers (the authorization indexes). */
export type CacheChange =
  | {
      readonly type: "ADDED" | "MODIFIED" | "DELETED";
      readonly current: CachedObject | undefined;
      readonly previous: CachedObject | undefined;
      /** `current` decoded (the object its JSON was made from), shared by every follower: read-only. */
      readonly currentObject: ApiObject | undefined;
    }
  | { readonly type: "RESET" };

export type WatchStart = { readonly kind: "state" } | { readonly kind: "revision"; readonly revision: number };

/** One page of a list read from the cache. */
export interface CacheListPage {
  readonly items: CachedObject[];
  /** The last key looked at; a continue token resumes after it. */
  readonly lastKey: string | undefined;
  /** Keys under the prefix after `lastKey` (0: the list is complete). */
  readonly remaining: number;
}

/**
 * The state at one revision, kept while continue tokens of a paged list taken at that revision
 * may come back: an O(1) copy-on-write clone of the tree, and the keys remaining after each page
 * handed out (so the next page reports them without counting).
 */
interface Snapshot {
  readonly tree: ObjectTree;
  readonly remainingAfter: Map<string, number>;
}

/** Snapshots kept per resource, at most (the oldest goes first); the event window bounds them too. */
const MAX_SNAPSHOTS = 32;
/** Remembered page ends per snapshot, at most (then counted again). */
const MAX_PAGE_ENDS = 4096;

function pageEnd(prefix: string, key: string): string {
  return `${prefix}\u0000${key}`;
}

/** A writer's JSON of one write, and the object it wrote when that is exactly the stored JSON decoded (`WatchCache.offerJson`). */
interface OfferedJson {
  readonly revision: number;
  readonly stored: string;
  readonly json: string;
  readonly object: ApiObject | undefined;
}

/** Offers kept at most (writes in flight between their commit and the cache's apply; far fewer in practice). */
const MAX_OFFERED = 1024;

/**
 * The cached state of one resource, kept current by the Cacher: objects in key order, a bounded
 * window of recent events, and the watchers to fan events out to.
 */
export class WatchCache {
  readonly prefix: string;
  codec: ResourceCodec;
  private readonly options: WatchCacheOptions;
  private readonly objects: CacheObjects;
  /** Snapshots for paged lists, by revision, oldest first. */
  private readonly snapshots = new Map<number, Snapshot>();
  /** Events from `windowHead` on; slots before it are cleared as events drop out (their objects can go). */
  private window: (CacheEvent | undefined)[] = [];
  private windowTimes: number[] = [];
  /** The JSON size of the object each window event brings, and their sum from `windowHead` on. */
  private windowSizes: number[] = [];
  private windowBytes = 0;
  private windowHead = 0;
  /** Every event with a revision above this one is in the window. */
  private windowStart = 0;
  private readonly watchers = new Set<CacheWatcher>();
  private readonly groups = new Map<string, WatcherGroup>();
  /** The same groups, found from an event's key (its namespace, its name) instead of scanned. */
  private readonly index: WatcherIndex<WatcherGroup>;
  /** Watch filters evaluated against events so far (a group's filter counts once per event). */
  filterEvaluations = 0;
  private groupSequence = 0;
  /** Groups with lines not yet handed to their watchers. */
  private dirty: WatcherGroup[] = [];
  private flushScheduled = false;
  private readonly listeners = new Set<(change: CacheChange) => void>();
  /** The writer's JSON of writes not applied yet, by key (`offerJson`). */
  private readonly offered = new Map<string, OfferedJson>();

  constructor(prefix: string, codec: ResourceCodec, options: WatchCacheOptions) {
    this.prefix = prefix;
    this.codec = codec;
    this.options = options;
    this.objects = new CacheObjects(prefix);
    this.index = new WatcherIndex(prefix);
    options.metrics?.capacity(prefix, options.windowSize);
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

  /**
   * Replaces the state with objects read at `revision` (start-up, or a re-list after an error):
   * stored entries, or entries already converted (`CachedObject`s, as the Cacher's chunked load makes them).
   */
  reset(entries: readonly ({ key: string; value: string; modRevision: number } | CachedObject)[], revision: number): void {
    this.objects.reset(entries.map((entry) => ("json" in entry ? entry : toCachedObject(this.codec, entry.key, entry.value, entry.modRevision, this.prefix))));
    this.offered.clear();
    this.snapshots.clear();
    this.window = [];
    this.windowTimes = [];
    this.windowSizes = [];
    this.windowBytes = 0;
    this.windowHead = 0;
    this.windowStart = revision;
    this.closeWatchers();
    for (const listener of this.listeners) listener({ type: "RESET" });
  }

  /**
   * The JSON the writer made of its write at `revision` — the stored text `stored` with that
   * version spliced in (`writtenJson`) — kept until the cache applies that write, which then takes
   * it as its own JSON of the object instead of splicing the same text again (a scan of the
   * metadata and a copy of the object's text per create). Used only when the applied value is that
   * same text; an offer the cache never applies (the key written again first, a reset) is dropped
   * with the key's next change or the reset, and the map is bounded.
   * `object`, when given, is the written object itself, exactly what decoding `stored` at
   * `revision` gives (plain JSON values, the same keys in the same order, the version set): the
   * cache hands it to its followers instead of parsing the text again (a parse, and a second
   * copy of the object kept by the informers). The writer must not change it afterwards.
   */
  offerJson(key: string, revision: number, stored: string, json: string, object?: ApiObject): void {
    if (this.codec.decodeOnlyStamps !== true) return;
    if (this.offered.size >= MAX_OFFERED) this.offered.clear();
    this.offered.set(key, { revision, stored, json, object });
  }

  /** The writer's offer of this change, if it made one (taken: each offer is used once). */
  private takeOffered(change: WatchEvent): OfferedJson | undefined {
    if (this.offered.size === 0) return undefined;
    const offer = this.offered.get(change.key);
    if (offer === undefined) return undefined;
    this.offered.delete(change.key);
    return offer.revision === change.revision && offer.stored === change.value ? offer : undefined;
  }

  /** Applies one committed change and fans it out; the Cacher advances the revision after. */
  apply(change: WatchEvent): void {
    let previous: CachedObject | undefined;
    let current: CachedObject | undefined;
    let currentObject: ApiObject | undefined;
    const offered = this.takeOffered(change);
    if (change.value === undefined) {
      previous = this.objects.delete(change.key);
      if (previous === undefined) return;
    } else {
      const decoded = decodeToCache(this.codec, change.key, change.value, change.revision, offered?.json, offered?.object);
      current = decoded.cached;
      currentObject = decoded.object;
      previous = this.objects.set(change.key, current);
    }
    const type = current === undefined ? "DELETED" : previous === undefined ? "ADDED" : "MODIFIED";
    const event = new CacheEvent(type, change.revision, change.key, current, previous);
    for (const listener of this.listeners) listener({ type, current, previous, currentObject });
    this.remember(event);
    const metrics = this.options.metrics;
    metrics?.received(this.prefix);
    let dispatched = false;
    this.index.forCandidates(change.key, (group) => {
      this.filterEvaluations++;
      const view = event.viewFor(group.filter);
      if (view === undefined) return;
      if (!dispatched && metrics !== undefined && group.watchers.size > 0) {
        dispatched = true;
        metrics.dispatched(this.prefix);
      }
      if (group.lines.length === 0) this.dirty.push(group);
      group.lines.push(event.line(view, group.encode));
      group.revisions.push(change.revision);
    });
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
      let whole = 0;
      for (const watcher of group.watchers) {
        if (watcher.liveAfter < first) {
          watcher.deliver(chunk, lines.length);
          whole++;
          continue;
        }
        // Registered during this turn: only the events after its start are its own.
        const own = lines.filter((_, index) => (revisions[index] ?? 0) > watcher.liveAfter);
        if (own.length > 0) watcher.deliver(Buffer.concat(own), own.length);
        for (const line of own) this.options.metrics?.sent?.(this.prefix, line.length, 1);
      }
      if (whole > 0 && this.options.metrics?.sent !== undefined) for (const line of lines) this.options.metrics.sent(this.prefix, line.length, whole);
    }
  }

  private remember(event: CacheEvent): void {
    const now = (this.options.now ?? Date.now)();
    this.window.push(event);
    this.windowTimes.push(now);
    // The object each event brings (its previous one came with an earlier event or predates the window).
    const size = (event.current ?? event.previous)?.json.length ?? 0;
    this.windowSizes.push(size);
    this.windowBytes += size;
    const byteLimit = this.options.windowBytes ?? Number.POSITIVE_INFINITY;
    while (
      this.window.length - this.windowHead > this.options.windowSize ||
      (this.windowHead < this.window.length - 1 && now - (this.windowTimes[this.windowHead] ?? now) > this.options.windowMs) ||
      (this.windowHead < this.window.length - 1 && this.windowBytes > byteLimit)
    ) {
      this.windowStart = this.window[this.windowHead]?.revision ?? this.windowStart;
      this.windowBytes -= this.windowSizes[this.windowHead] ?? 0;
      this.window[this.windowHead] = undefined;
      this.windowHead++;
    }
    if (this.snapshots.size > 0) this.dropSnapshotsBelow(this.windowStart);
    // Compact the arrays once the dropped head dominates.
    if (this.windowHead > 1024 && this.windowHead * 2 > this.window.length) {
      this.window = this.window.slice(this.windowHead);
      this.windowTimes = this.windowTimes.slice(this.windowHead);
      this.windowSizes = this.windowSizes.slice(this.windowHead);
      this.windowHead = 0;
    }
  }

  /**
   * The first page of a list of the live state: objects under `prefix` passing `matches`, at most
   * `limit` (0 = all). With `keepAt` (the revision the state is at) and more to come, the state is
   * kept as a snapshot for the list's continue tokens. Costs the page, not the collection.
   */
  list(prefix: string, options: { readonly limit: number; readonly matches?: (object: CachedObject) => boolean; readonly keepAt?: number }): CacheListPage {
    const page = readPage(this.objects.tree, prefix, options);
    if (!page.more || page.lastKey === undefined) return { items: page.items, lastKey: page.lastKey, remaining: 0 };
    const remaining = this.objects.countUnder(prefix) - page.scanned;
    if (options.keepAt !== undefined) this.keepSnapshot(options.keepAt).remainingAfter.set(pageEnd(prefix, page.lastKey), remaining);
    return { items: page.items, lastKey: page.lastKey, remaining };
  }

  /**
   * A page of a list continued at `revision` after `startAfter`, from the snapshot kept for it;
   * undefined when none is kept (dropped with the window, a re-list or a compaction).
   */
  listContinued(
    revision: number,
    prefix: string,
    options: { readonly startAfter: string; readonly limit: number; readonly matches?: (object: CachedObject) => boolean },
  ): CacheListPage | undefined {
    const snapshot = this.snapshots.get(revision);
    if (snapshot === undefined) return undefined;
    const page = readPage(snapshot.tree, prefix, options);
    if (!page.more || page.lastKey === undefined) return { items: page.items, lastKey: page.lastKey, remaining: 0 };
    const before = snapshot.remainingAfter.get(pageEnd(prefix, options.startAfter)) ?? countAfter(snapshot.tree, prefix, options.startAfter);
    const remaining = before - page.scanned;
    if (snapshot.remainingAfter.size >= MAX_PAGE_ENDS) snapshot.remainingAfter.clear();
    snapshot.remainingAfter.set(pageEnd(prefix, page.lastKey), remaining);
    return { items: page.items, lastKey: page.lastKey, remaining };
  }

  /** The snapshot at `revision`, taken now if none is (the caller makes sure the state is at it). */
  private keepSnapshot(revision: number): Snapshot {
    const known = this.snapshots.get(revision);
    if (known !== undefined) return known;
    const snapshot: Snapshot = { tree: this.objects.snapshot(), remainingAfter: new Map() };
    this.snapshots.set(revision, snapshot);
    if (this.snapshots.size > MAX_SNAPSHOTS) {
      const oldest = this.snapshots.keys().next().value;
      if (oldest !== undefined) this.snapshots.delete(oldest);
    }
    return snapshot;
  }

  /** Drops the snapshots of revisions below `revision` (out of the window, or compacted in the store). */
  dropSnapshotsBelow(revision: number): void {
    for (const kept of this.snapshots.keys()) if (kept < revision) this.snapshots.delete(kept);
  }

  /** Revisions with a kept snapshot, oldest first (for tests and metrics). */
  get snapshotRevisions(): number[] {
    return [...this.snapshots.keys()];
  }

  /** Objects cached. */
  get size(): number {
    return this.objects.size;
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
    const recoded = [...this.objects.tree.values()].map((object) => toCachedObject(codec, object.key, object.json, object.revision, this.prefix));
    this.objects.reset(recoded);
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
      this.index.add(group);
    }
    const joined = group;
    const watcher = new CacheWatcher({
      limit: this.options.watcherQueueLimit,
      limitBytes: this.options.watcherQueueBytes,
      startRevision,
      // Everything applied so far (up to currentRevision) is in the backlog or before the start.
      liveAfter: Math.max(startRevision, currentRevision),
      onEnd: (ended) => this.remove(ended, joined),
    });
    if (start.kind === "state") {
      const initial = this.list(filter.prefix, { limit: 0, matches: (candidate) => filterMatches(filter, candidate) }).items;
      const sent = this.options.metrics?.sent;
      for (const object of initial) {
        const line = encode("ADDED", object.json, object);
        watcher.pushBacklog(line);
        sent?.call(this.options.metrics, this.prefix, byteLength(line), 1);
      }
      this.options.metrics?.initEvents(this.prefix, initial.length);
      if (options.initialEventsEnd !== undefined) watcher.pushBacklog(options.initialEventsEnd);
    } else {
      for (let index = this.firstEventAfter(start.revision); index < this.window.length; index++) {
        const event = this.window[index];
        if (event === undefined) continue;
        const view = event.viewFor(filter);
        if (view === undefined) continue;
        const line = event.line(view, options.encode);
        watcher.pushBacklog(line);
        this.options.metrics?.sent?.(this.prefix, byteLength(line), 1);
      }
    }
    this.watchers.add(watcher);
    group.watchers.add(watcher);
    return watcher;
  }

  private remove(watcher: CacheWatcher, group: WatcherGroup): void {
    if (watcher.endReason === "overflow") this.options.metrics?.terminated(this.prefix);
    this.watchers.delete(watcher);
    group.watchers.delete(watcher);
    if (group.watchers.size === 0 && this.groups.get(group.key) === group) {
      this.groups.delete(group.key);
      this.index.delete(group);
    }
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
    this.index.clear();
  }
}

/** A line's size in bytes (UTF-8 for text). */
function byteLength(line: string | Uint8Array): number {
  return typeof line === "string" ? Buffer.byteLength(line) : line.byteLength;
}
