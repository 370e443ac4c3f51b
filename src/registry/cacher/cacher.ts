import { isStorageError, type Storage } from "../../storage/index.js";
import { type CachedObject, loadCachedObject, type ResourceCodec } from "./cached-object.js";
import { WatchCache, type WatchCacheOptions } from "./watch-cache.js";
import { pause as wait } from "../../util/pause.js";

/** Objects read from storage per step when a cache is loaded. */
const LOAD_CHUNK = 5000;

export const DEFAULT_WATCH_CACHE_OPTIONS: WatchCacheOptions = {
  windowSize: 20_000,
  windowMs: 5 * 60_000,
  windowBytes: 32 * 1024 * 1024,
  watcherQueueLimit: 10_000,
  watcherQueueBytes: 32 * 1024 * 1024,
};

/** How long a consistent read waits for events before it asks the store's watch for progress. */
const PROGRESS_GRACE_MS = 100;
/** How long a failed storage watch is resumed (every RESUME_PAUSE_MS) before the store counts as down. */
const RESUME_WINDOW_MS = 1500;
const RESUME_PAUSE_MS = 150;

/**
 * Keeps a WatchCache per resource current from ONE storage watch over every key. Because every
 * write carries the next global revision and passes through this one stream, the cacher knows
 * exactly how far every cache is: `revision` is the last revision applied to all of them, and a
 * consistent read waits for `revision >= storage.currentRevision()` instead of re-reading the store.
 */
export class Cacher {
  private readonly storage: Storage;
  private readonly options: WatchCacheOptions;
  private readonly caches = new Map<string, WatchCache>();
  private revisionValue = 0;
  private waiters: { revision: number; resolve: () => void }[] = [];
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;
  private readonly onError: (error: unknown) => void;
  private readonly failureListeners = new Set<(error: unknown) => void>();

  constructor(storage: Storage, options: Partial<WatchCacheOptions> & { onError?: (error: unknown) => void } = {}) {
    this.storage = storage;
    this.options = { ...DEFAULT_WATCH_CACHE_OPTIONS, ...options };
    this.onError = options.onError ?? (() => {});
  }

  /** Registers a resource's cache; keys under `prefix` belong to it. Call before `start`. */
  register(prefix: string, codec: ResourceCodec): WatchCache {
    const cache = new WatchCache(prefix, codec, this.options);
    this.caches.set(prefix, cache);
    return cache;
  }

  /**
   * Registers a resource's cache while the cacher runs (a custom resource served once its
   * definition is established): the prefix is listed at the revision the other caches reflect,
   * again if the cacher moved on meanwhile, and joins the stream at exactly that revision.
   * Before `start` it is `register`.
   */
  async registerLive(prefix: string, codec: ResourceCodec): Promise<WatchCache> {
    const known = this.caches.get(prefix);
    if (known !== undefined) return known;
    if (this.running === undefined) return this.register(prefix, codec);
    const cache = new WatchCache(prefix, codec, this.options);
    for (;;) {
      const revision = this.revisionValue;
      const listed = await this.listAt(cache, revision);
      // No await between the check and the insert: no event of the stream can fall in between.
      if (revision !== this.revisionValue) continue;
      const raced = this.caches.get(prefix);
      if (raced !== undefined) return raced;
      cache.reset(listed, revision);
      this.caches.set(prefix, cache);
      return cache;
    }
  }

  /** Stops keeping a resource's cache (its watchers end); its keys are ignored from then on. */
  unregister(prefix: string): void {
    const cache = this.caches.get(prefix);
    if (cache === undefined) return;
    this.caches.delete(prefix);
    cache.closeWatchers();
  }

  /** Calls `listener` when the storage watch fails for another reason than compaction; returns the unsubscribe. */
  onFailure(listener: (error: unknown) => void): () => void {
    this.failureListeners.add(listener);
    return () => void this.failureListeners.delete(listener);
  }

  /** The last revision every cache reflects. */
  get revision(): number {
    return this.revisionValue;
  }

  /** Lists every resource at one revision, then follows the store from there. */
  async start(): Promise<void> {
    await this.load();
    this.running = this.follow();
  }

  private async load(): Promise<void> {
    const revision = this.storage.currentRevision();
    for (const cache of this.caches.values()) cache.reset(await this.listAt(cache, revision), revision);
    this.revisionValue = revision;
    this.release();
  }

  /**
   * A cache's objects at `revision`, read from storage in chunks and converted chunk by chunk: the
   * raw values of one chunk are alive at a time, not those of the whole resource (at 100k objects
   * that peak is what the heap, and so the RSS, would keep after start-up).
   */
  private async listAt(cache: WatchCache, revision: number): Promise<CachedObject[]> {
    const objects: CachedObject[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.storage.list(cache.prefix, { revision, limit: LOAD_CHUNK, ...(startAfter === undefined ? {} : { startAfter }) });
      for (const entry of page.items) objects.push(loadCachedObject(cache.codec, entry.key, entry.value, entry.modRevision, cache.prefix));
      const last = page.items[page.items.length - 1];
      if (page.remaining === 0 || last === undefined) return objects;
      startAfter = last.key;
    }
  }

  private cacheFor(key: string): WatchCache | undefined {
    // Keys are in kube's layout (storage/key-layout.ts): a resource's prefix is one segment
    // (`/pods/`) or two (`/services/specs/`, `/<group>/<plural>/`), never both for one key.
    const first = key.indexOf("/", 1);
    if (first < 0) return undefined;
    const one = this.caches.get(key.slice(0, first + 1));
    if (one !== undefined) return one;
    const second = key.indexOf("/", first + 1);
    return second < 0 ? undefined : this.caches.get(key.slice(0, second + 1));
  }

  private async follow(): Promise<void> {
    const signal = this.stopController.signal;
    /** When the current run of failed resumes began (undefined: the watch is healthy), and the last failure. */
    let failingSince: number | undefined;
    let lastFailure = 0;
    const onProgress = (revision: number): void => {
      failingSince = undefined;
      if (revision <= this.revisionValue) return;
      this.revisionValue = revision;
      this.release();
    };
    while (!signal.aborted) {
      try {
        for await (const event of this.storage.watch("", this.revisionValue, signal, { onProgress, withoutPrevious: true })) {
          failingSince = undefined;
          this.cacheFor(event.key)?.apply(event);
          this.revisionValue = Math.max(this.revisionValue, event.revision);
          this.release();
        }
        return;
      } catch (error) {
        if (signal.aborted || isStorageError(error, "Closed")) return;
        if (!isStorageError(error, "Compacted")) {
          // A remote store's hiccup (a member went away, an election): watch again from where
          // the caches are, on another member, for a short while; watchers see nothing of it.
          const now = Date.now();
          // A watch that ran quietly for a while before failing starts a new run.
          if (failingSince === undefined || now - lastFailure > RESUME_WINDOW_MS) failingSince = now;
          lastFailure = now;
          if (now - failingSince < RESUME_WINDOW_MS) {
            await wait(RESUME_PAUSE_MS, signal);
            continue;
          }
          // The store is gone: watches end with an error at once so clients re-list (and see
          // the outage) instead of waiting on a silent cache.
          for (const listener of [...this.failureListeners]) listener(error);
        }
        failingSince = undefined;
        // Fell behind compaction (or the store is down): re-list and go on; watchers are ended
        // by the reset and resume from their last version (or get 410 and re-list).
        this.onError(error);
        await this.reload(signal);
      }
    }
  }

  /** Re-lists until it succeeds: a remote store that is down is tried again with a growing pause (at most 2 s). */
  private async reload(signal: AbortSignal): Promise<void> {
    for (let pause = 100; !signal.aborted; pause = Math.min(pause * 2, 2000)) {
      try {
        await this.load();
        return;
      } catch (error) {
        if (signal.aborted || isStorageError(error, "Closed")) return;
        this.onError(error);
        await wait(pause, signal);
      }
    }
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((waiter) => waiter.revision <= this.revisionValue);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => waiter.revision > this.revisionValue);
    for (const waiter of ready) waiter.resolve();
  }

  /**
   * Resolves once every cache reflects `revision`; false after `timeoutMs` (the caller answers
   * 504, as kube does for a version it has not reached).
   */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (revision <= this.revisionValue) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        resolve(false);
      }, timeoutMs);
      const entry = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(entry);
    });
  }

  /** The store's compaction point: revisions below it can no longer be read there. */
  compactedRevision(): number {
    return this.storage.compactedRevision();
  }

  /**
   * Waits until the caches reflect everything committed so far (a consistent read). On a store
   * other servers write to, "so far" is the store's revision asked for now (kube's consistent
   * reads from the cache): the writes under the prefix arrive as events; when the last ones fell
   * outside it, the watch is asked for progress after a short grace and every grace after.
   * False when the store does not answer or the cache does not get there within `timeoutMs`.
   */
  waitForCurrent(timeoutMs: number): Promise<boolean> {
    // A store only this server writes knows its revision here: no request, and no async layers
    // around the (usually already settled) wait, which admission's listers pay on every pod create.
    if (this.storage.shared === undefined) return this.waitFor(this.storage.currentRevision(), timeoutMs);
    // The store did not answer: the caller answers 504 as for a revision not reached.
    return this.reachCurrent(timeoutMs).catch(() => false);
  }

  /**
   * waitForCurrent, but a store that does not answer the revision request fails with its own
   * error (a GET answers it as a read from the store would: 503/504), and false only means the
   * cache did not get there in time.
   */
  async reachCurrent(timeoutMs: number): Promise<boolean> {
    const shared = this.storage.shared;
    if (shared === undefined) return this.waitFor(this.storage.currentRevision(), timeoutMs);
    const started = Date.now();
    const target = await shared.fetchRevision();
    return this.reach(target, Math.max(0, timeoutMs - (Date.now() - started)));
  }

  /**
   * Resolves true once every cache reflects `revision` (false after `timeoutMs`). On a store other
   * servers write to, the watch is asked for progress after a short grace and every grace after:
   * the revision may be one of writes outside the prefix, which send no event.
   */
  async reach(revision: number, timeoutMs: number): Promise<boolean> {
    if (revision <= this.revisionValue) return true;
    const shared = this.storage.shared;
    const timer = shared === undefined ? undefined : setInterval(() => shared.requestProgress(), PROGRESS_GRACE_MS);
    try {
      return await this.waitFor(revision, timeoutMs);
    } finally {
      clearInterval(timer);
    }
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    for (const cache of this.caches.values()) cache.closeWatchers();
    await this.running;
  }
}
