import { ApiError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { isStorageError, type WatchEvent } from "../storage/index.js";
import { parseRevision, type ListOptions } from "./list-options.js";
import type { Store } from "./store.js";

export type ObjectEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One event as a watch client sees it. For ERROR, `object` is a Status document. */
export interface ObjectEvent {
  readonly type: ObjectEventType;
  readonly object: ApiObject | Record<string, unknown>;
}

export interface WatchRequest {
  readonly namespace: string;
  /** Watch one object (its path, or `fieldSelector=metadata.name=`). */
  readonly name?: string;
  readonly options: ListOptions;
  readonly signal: AbortSignal;
  /** Ends the watch normally (timeoutSeconds): a final BOOKMARK is sent when bookmarks are allowed. */
  readonly deadline?: AbortSignal;
  /** Interval of periodic BOOKMARKs when the client allows them. */
  readonly bookmarkIntervalMs?: number;
  /** The annotation key that marks the end of initial events (`<domain>/initial-events-end`). */
  readonly initialEventsEndAnnotation: string;
}

/**
 * Streams a store's changes as watch events: synthetic ADDED for the current state when the
 * resourceVersion is unset or "0", then every change after the start revision, filtered by the
 * selectors (an object that stops matching is sent as DELETED, one that starts as ADDED).
 * A start revision older than the history window yields one ERROR event with 410 Expired.
 */
export async function* watchStore(store: Store, request: WatchRequest): AsyncGenerator<ObjectEvent> {
  const { options, signal } = request;
  store.checkFieldSelector(options);
  const nameFilter = request.name !== undefined && request.name !== "" ? store.key(request.namespace, request.name) : undefined;
  const matches = (object: ApiObject): boolean => store.matches(object, options);
  let startRevision: number;
  const initial = options.resourceVersion === undefined || options.resourceVersion === "0" || options.sendInitialEvents === true;
  if (initial) {
    const listed = await store.list(request.namespace, {
      ...options,
      limit: 0,
      continueToken: undefined,
      resourceVersion: options.sendInitialEvents === true ? options.resourceVersion : undefined,
      resourceVersionMatch: undefined,
    });
    startRevision = Number(listed.resourceVersion);
    for (const item of listed.items) {
      const object = item.decode();
      if (nameFilter !== undefined && store.key(object.metadata.namespace ?? "", object.metadata.name ?? "") !== nameFilter) continue;
      yield { type: "ADDED", object };
    }
    if (options.sendInitialEvents === true) {
      yield bookmarkEvent(store, startRevision, { [request.initialEventsEndAnnotation]: "true" });
    }
  } else {
    startRevision = parseRevision(options.resourceVersion ?? "0");
  }
  const interval = options.allowWatchBookmarks ? (request.bookmarkIntervalMs ?? 60_000) : 0;
  let lastRevision = startRevision;
  // The storage watch gets its own signal so this generator can end it (deadline) without
  // waiting for a next event: an async iterator's return() queues behind a pending next().
  const inner = new AbortController();
  const stopInner = (): void => inner.abort();
  signal.addEventListener("abort", stopInner, { once: true });
  const events = store.storage.watch(nameFilter ?? store.prefix(request.namespace), startRevision, inner.signal)[Symbol.asyncIterator]();
  let pendingNext: Promise<IteratorResult<WatchEvent>> | undefined;
  const deadline = request.deadline;
  const ended =
    deadline === undefined
      ? undefined
      : new Promise<"deadline">((resolve) => {
          if (deadline.aborted) resolve("deadline");
          deadline.addEventListener("abort", () => resolve("deadline"), { once: true });
        });
  let reachedDeadline = false;
  try {
    for (;;) {
      if (pendingNext === undefined) {
        pendingNext = events.next();
        // It may fail while this generator waits at a yield; the race below still sees the failure.
        pendingNext.catch(() => {});
      }
      const racers: Promise<IteratorResult<WatchEvent> | "tick" | "deadline">[] = [pendingNext];
      if (interval > 0) racers.push(delay(interval, signal));
      if (ended !== undefined) racers.push(ended);
      const step = racers.length === 1 ? await pendingNext : await Promise.race(racers);
      if (step === "deadline") {
        reachedDeadline = true;
        break;
      }
      if (step === "tick") {
        yield bookmarkEvent(store, lastRevision);
        continue;
      }
      pendingNext = undefined;
      if (step.done === true) break;
      const event = step.value;
      if (nameFilter !== undefined && event.key !== nameFilter) continue;
      lastRevision = event.revision;
      const converted = await convert(store, event, matches);
      if (converted !== undefined) yield converted;
    }
  } catch (error) {
    if (isStorageError(error, "Compacted")) {
      // kube's etcd3 watcher (no watch cache) words a compacted start this way; the cache's own
      // window gives "too old resource version: <rv> (<oldest>)" instead.
      yield errorEvent(new ApiError(410, "Expired", "The resourceVersion for the provided watch is too old."));
      return;
    }
    if (signal.aborted) return;
    throw error;
  } finally {
    inner.abort();
    signal.removeEventListener("abort", stopInner);
    await events.return?.();
  }
  // The final bookmark names the last revision whose events were all sent.
  if (options.allowWatchBookmarks && (reachedDeadline || !signal.aborted)) yield bookmarkEvent(store, lastRevision);
}

/** A storage event as the watched version sees it (converted when stored as another version), or undefined when filtered out. */
async function convert(store: Store, event: WatchEvent, matches: (object: ApiObject) => boolean): Promise<ObjectEvent | undefined> {
  // The previous state is reported at the event's revision, as kube's watch cache does.
  const entries = [event.value, event.previous].map((value) => (value === undefined ? undefined : { value, modRevision: event.revision }));
  const present = entries.filter((entry): entry is { value: string; modRevision: number } => entry !== undefined);
  const decoded = await store.decodeAll(present.map((entry) => ({ key: event.key, createRevision: 0, ...entry })));
  const current = entries[0] === undefined ? undefined : decoded.shift();
  const previous = entries[1] === undefined ? undefined : decoded.shift();
  const nowMatches = current !== undefined && matches(current);
  const usedToMatch = previous !== undefined && matches(previous);
  switch (event.type) {
    case "ADDED":
      return nowMatches && current !== undefined ? { type: "ADDED", object: current } : undefined;
    case "MODIFIED":
      if (nowMatches && current !== undefined) return { type: usedToMatch ? "MODIFIED" : "ADDED", object: current };
      if (usedToMatch && previous !== undefined) return { type: "DELETED", object: previous };
      return undefined;
    case "DELETED":
      return usedToMatch && previous !== undefined ? { type: "DELETED", object: previous } : undefined;
  }
}

/** A BOOKMARK: an object of the watched kind carrying only `metadata.resourceVersion`. */
export function bookmarkEvent(store: Store, revision: number, annotations?: Record<string, string>): ObjectEvent {
  const definition = store.definition;
  return {
    type: "BOOKMARK",
    object: {
      kind: definition.kind,
      apiVersion: definition.group === "" ? definition.version : `${definition.group}/${definition.version}`,
      metadata: { resourceVersion: String(revision), ...(annotations === undefined ? {} : { annotations }) },
    },
  };
}

export function errorEvent(error: ApiError): ObjectEvent {
  return {
    type: "ERROR",
    object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: error.message, reason: error.reason, code: error.code },
  };
}

function delay(ms: number, signal: AbortSignal): Promise<"tick"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("tick"), ms);
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  });
}
