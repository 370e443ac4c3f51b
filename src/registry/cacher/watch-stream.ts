import { ApiError, timeout } from "../../api/errors.js";
import { parseRevision, type ListOptions } from "../list-options.js";
import type { CacheWatcher, EventEncoder } from "./cache-watcher.js";
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
  /** Encodes events for non-JSON representations (Tables); JSON lines are shared otherwise. */
  readonly encode?: EventEncoder;
  /** A BOOKMARK line for a revision, optionally with the initial-events-end annotation. */
  readonly bookmark: (revision: number, initialEventsEnd: boolean) => string;
  /** An ERROR line for an ApiError. */
  readonly error: (error: ApiError) => string;
}


/**
 * Opens a watch on the cache: waits as the start needs, registers the watcher (so anything
 * committed after this resolves is delivered), and returns the stream of encoded chunks. Start by the spec's watch table: rv unset =
 * current state (after catching up with the store) as ADDED then changes; "0" = the cached state
 * as is; other = changes after it, replayed from the event window, or one 410 ERROR event when it
 * is older than the window. `sendInitialEvents=true` streams the state and ends it with a
 * BOOKMARK carrying the initial-events-end annotation.
 */
export async function openCachedWatch(request: CachedWatchRequest): Promise<AsyncGenerator<string>> {
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
    const line = request.error(new ApiError(410, "Expired", `too old resource version: ${requested} (${request.cache.oldestResumableRevision})`));
    return (async function* () {
      yield line;
    })();
  }
  // Ends the registration even if the stream is never read (client gone before the first write).
  request.signal.addEventListener("abort", () => watcher.end("closed"), { once: true });
  return stream(request, watcher);
}

/** Streams a registered watcher until it ends, the client goes, or the deadline passes. */
async function* stream(request: CachedWatchRequest, watcher: CacheWatcher): AsyncGenerator<string> {
  const { cacher, options } = request;
  // One listener each for the watch's whole life; they only wake the watcher.
  const wake = (): void => watcher.interrupt();
  request.signal.addEventListener("abort", wake, { once: true });
  request.deadline.addEventListener("abort", wake, { once: true });
  if (request.signal.aborted || request.deadline.aborted) wake();
  const bookmarks = options.allowWatchBookmarks && request.bookmarkIntervalMs > 0;
  const timer = bookmarks ? setInterval(wake, request.bookmarkIntervalMs) : undefined;
  try {
    for (;;) {
      const lines = await watcher.next();
      if (lines === undefined) return; // ended: overflow (too slow) or server stop
      if (lines.length > 0) {
        yield lines.length === 1 ? (lines[0] ?? "") : lines.join("");
        continue;
      }
      if (request.signal.aborted) return;
      // Woken by the bookmark tick or the deadline: everything dispatched so far first.
      const pending = watcher.takePending();
      if (pending.length > 0) yield pending.join("");
      if (options.allowWatchBookmarks) yield request.bookmark(Math.max(cacher.revision, watcher.startRevision), false);
      if (request.deadline.aborted) return;
    }
  } finally {
    clearInterval(timer);
    request.signal.removeEventListener("abort", wake);
    request.deadline.removeEventListener("abort", wake);
    watcher.end("closed");
  }
}
