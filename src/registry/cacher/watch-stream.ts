import { ApiError, timeout } from "../../api/errors.js";
import { parseRevision, type ListOptions } from "../list-options.js";
import type { CacheWatcher, EventEncoder, SharedEncoder } from "./cache-watcher.js";
import type { ChunkSink, PushBody } from "../../request/push-body.js";
import type { Cacher } from "./cacher.js";
import type { WatchCache, WatchStart } from "./watch-cache.js";

export interface CachedWatchRequest {
  readonly cacher: Cacher;
  readonly cache: WatchCache;
  /** Collection prefix (namespace) and, for one object, its key. */
  readonly prefix: string;
  readonly key?: string;
  readonly options: ListOptions;
  /** Client gone or server stopping: end at once. */
  readonly signal: AbortSignal;
  /** timeoutSeconds reached: end normally, with a final BOOKMARK when allowed. */
  readonly deadline: AbortSignal;
  readonly bookmarkIntervalMs: number;
  /** How long to wait for the cache to reach a requested or the current revision. */
  readonly waitMs: number;
  /** Encodes events for other representations: shared (protobuf) or per watcher (Tables); JSON lines otherwise. */
  readonly encode?: EventEncoder | SharedEncoder;
  /** A BOOKMARK line (or frame) for a revision, optionally with the initial-events-end annotation. */
  readonly bookmark: (revision: number, initialEventsEnd: boolean) => string | Uint8Array;
  /** An ERROR line (or frame) for an ApiError. */
  readonly error: (error: ApiError) => string | Uint8Array;
}

/**
 * Opens a watch on the cache: waits as the start needs, registers the watcher (so anything
 * committed after this resolves is delivered), and returns the stream. Start by the spec's watch
 * table: rv unset = current state (after catching up with the store) as ADDED then changes; "0" =
 * the cached state as is; other = changes after it, replayed from the event window, or one 410
 * ERROR event when it is older than the window. `sendInitialEvents=true` streams the state and
 * ends it with a BOOKMARK carrying the initial-events-end annotation.
 */
export async function openCachedWatch(request: CachedWatchRequest): Promise<PushBody> {
  const { cacher, options } = request;
  const version = options.resourceVersion;
  let start: WatchStart;
  if (options.sendInitialEvents === false) {
    // Explicitly no initial state: changes from the most recent version on.
    if (version === undefined && !(await cacher.waitForCurrent(request.waitMs))) throw timeout("the watch cache did not catch up in time", 1);
    start = { kind: "revision", revision: version === undefined || version === "0" ? cacher.revision : parseRevision(version) };
  } else if (version === undefined || version === "0" || options.sendInitialEvents === true) {
    if (version === undefined && !(await cacher.waitForCurrent(request.waitMs))) throw timeout("the watch cache did not catch up in time", 1);
    if (version !== undefined && version !== "0" && !(await cacher.waitFor(parseRevision(version), request.waitMs))) {
      throw timeout(`Too large resource version: ${version}, current: ${cacher.revision}`, 1);
    }
    start = { kind: "state" };
  } else {
    start = { kind: "revision", revision: parseRevision(version) };
  }
  const startRevision = cacher.revision;
  const initialEventsEnd = options.sendInitialEvents === true ? request.bookmark(startRevision, true) : undefined;
  const filter = { prefix: request.prefix, key: request.key, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const watcher: CacheWatcher | undefined = request.cache.watch(filter, start, startRevision, { encode: request.encode, initialEventsEnd });
  if (watcher === undefined) {
    const requested = start.kind === "revision" ? start.revision : 0;
    return singleLine(request.error(new ApiError(410, "Expired", `too old resource version: ${requested} (${request.cache.oldestResumableRevision})`)));
  }
  return new CachedWatchStream(request, watcher);
}

/** A stream of one line (the 410 ERROR event), readable both ways. */
function singleLine(line: string | Uint8Array): PushBody {
  const bytes = typeof line === "string" ? Buffer.from(line) : line;
  return {
    async pipeTo(sink: ChunkSink): Promise<void> {
      sink.write(bytes);
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
      yield bytes;
    },
  };
}

/**
 * A registered watcher's stream until it ends (overflow, server stop), the client goes, or the
 * deadline passes. Timers and the signals act on the watcher directly, whether the listener
 * pushes it into a response or something iterates it: a BOOKMARK every interval when allowed,
 * and at the deadline a final BOOKMARK and the end. Each first flushes the cache, so a BOOKMARK
 * follows every event applied before it.
 */
class CachedWatchStream implements PushBody {
  private readonly request: CachedWatchRequest;
  private readonly watcher: CacheWatcher;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.watcher.abort();
  private readonly onDeadline = (): void => this.finalBookmark();
  private readonly unsubscribeFailure: () => void;

  constructor(request: CachedWatchRequest, watcher: CacheWatcher) {
    this.request = request;
    this.watcher = watcher;
    const bookmarks = request.options.allowWatchBookmarks && request.bookmarkIntervalMs > 0;
    this.timer = bookmarks ? setInterval(() => this.bookmark(), request.bookmarkIntervalMs) : undefined;
    // Registered once for the watch's life; they also end a stream nobody ever reads.
    request.signal.addEventListener("abort", this.onAbort, { once: true });
    request.deadline.addEventListener("abort", this.onDeadline, { once: true });
    this.unsubscribeFailure = request.cacher.onFailure(() => this.storageFailed());
    void watcher.done.then(() => this.release());
    if (request.signal.aborted) this.onAbort();
    else if (request.deadline.aborted) this.onDeadline();
  }

  private bookmark(): void {
    this.request.cache.flush();
    this.watcher.pushLine(this.request.bookmark(Math.max(this.request.cacher.revision, this.watcher.startRevision), false));
  }

  private finalBookmark(): void {
    if (this.request.options.allowWatchBookmarks) this.bookmark();
    else this.request.cache.flush();
    this.watcher.end("closed");
  }

  /** The cache lost its store: what was applied, then one 503 ERROR event, then the end (clients re-list). */
  private storageFailed(): void {
    this.request.cache.flush();
    this.watcher.pushLine(this.request.error(new ApiError(503, "ServiceUnavailable", "the watch cache lost its storage watch: storage is unavailable")));
    this.watcher.end("closed");
  }

  private release(): void {
    this.unsubscribeFailure();
    clearInterval(this.timer);
    this.request.signal.removeEventListener("abort", this.onAbort);
    this.request.deadline.removeEventListener("abort", this.onDeadline);
  }

  pipeTo(sink: ChunkSink): Promise<void> {
    return this.watcher.attach(sink);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const chunk = await this.watcher.next();
        if (chunk === undefined) return;
        yield chunk;
      }
    } finally {
      this.watcher.abort();
    }
  }
}
