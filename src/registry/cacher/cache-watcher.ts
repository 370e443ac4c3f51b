import type { FieldRequirement, LabelRequirement } from "../../api/selector.js";
import { matchesFields, matchesLabels } from "../../api/selector.js";
import { cachedField, type CachedObject } from "./cached-object.js";
import type { ChunkSink } from "../../request/push-body.js";

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

/**
 * Encodes one event for this watcher's representation; `source` is the cache entry the JSON is
 * of, when it is one (an encoder may remember its work by it). JSON watchers share the event's memo.
 */
export type EventEncoder = (type: WatchEventType, json: string, source?: CachedObject) => string | Uint8Array;

/**
 * An encoding every watcher using it shares, as they share JSON lines: each event is encoded once
 * per `key` (protobuf frames), and watchers with the same filter and key form one group.
 */
export interface SharedEncoder {
  readonly key: string;
  readonly encode: EventEncoder;
}

/** A chunk handed to a sink is cut at about this size (a large backlog goes out in pieces). */
const CHUNK_BYTES = 256 * 1024;

/**
 * A watcher's outgoing stream: a backlog (initial state or replay, unbounded but finite), then
 * live events, bookmarks and the end. Live events arrive as chunks the cache built once for every
 * watcher with the same filter (`deliver`). With a sink attached (`attach`: the listener's
 * response) a chunk is written at once while the sink takes it; otherwise it waits in the queue,
 * and queued chunks go out together, cut at about 256 KiB. Without a sink, `next()` hands the
 * queue out the same way (an async iterator reading the stream).
 *
 * The queue is bounded by `limit` live events and `limitBytes` of them: a watcher that passes it cannot keep up and is
 * ended (its client resumes from the last version it saw, as with kube's watch cache). What was
 * queued is still written before the stream finishes; `abort` drops it and finishes at once.
 */
export class CacheWatcher {
  /** Bookmarks never report a revision below this one. */
  readonly startRevision: number;
  /** Live events at or below this revision are not for this watcher: its backlog covers them, or it starts after them. */
  readonly liveAfter: number;
  private readonly limit: number;
  private readonly limitBytes: number;
  /** Size of the live events in the queue (string length standing in for bytes). */
  private queuedBytes = 0;
  /** Output not yet handed out, in order; `counts[i]` = live events in `items[i]`. */
  private items: (string | Uint8Array)[] = [];
  private counts: number[] = [];
  private head = 0;
  /** Live events in the queue. */
  private queued = 0;
  private sink: ChunkSink | undefined;
  private unsubscribe: (() => void) | undefined;
  private blocked = false;
  private ended = false;
  private finished = false;
  private wake: (() => void) | undefined;
  private readonly onEnd: ((watcher: CacheWatcher) => void) | undefined;
  private resolveDone: () => void = () => {};
  /** Settles when the stream has finished: ended and everything handed out, or aborted. */
  readonly done: Promise<void>;
  /** Why the stream ended, for the caller's logs and tests. */
  endReason: "closed" | "overflow" | undefined;

  constructor(options: { limit: number; limitBytes?: number; startRevision: number; liveAfter: number; onEnd?: (watcher: CacheWatcher) => void }) {
    this.limit = options.limit;
    this.limitBytes = options.limitBytes ?? Number.POSITIVE_INFINITY;
    this.startRevision = options.startRevision;
    this.liveAfter = options.liveAfter;
    this.onEnd = options.onEnd;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Adds an initial or replayed line, ahead of live ones; not counted against the limit. */
  pushBacklog(line: string | Uint8Array): void {
    this.enqueue(line, 0);
  }

  /** Adds a line that is not an event (a BOOKMARK); not counted against the limit. */
  pushLine(line: string | Uint8Array): void {
    if (!this.ended) this.enqueue(line, 0);
  }

  /** Adds a chunk of `events` live events; ends the watcher when its queue would pass the limit. */
  deliver(chunk: Uint8Array, events: number): void {
    if (this.ended) return;
    const sink = this.sink;
    if (sink !== undefined && !this.blocked && this.head === this.items.length) {
      this.blocked = !sink.write(chunk);
      return;
    }
    if (this.queued + events > this.limit || this.queuedBytes + chunk.length > this.limitBytes) {
      this.end("overflow");
      return;
    }
    this.enqueue(chunk, events);
  }

  /** Ends the stream after what is queued (overflow, server stop, a re-list, the deadline). */
  end(reason: "closed" | "overflow"): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.onEnd?.(this);
    this.flushOut();
  }

  /** Ends the stream now, dropping what is queued (the client is gone). */
  abort(): void {
    this.items = [];
    this.counts = [];
    this.head = 0;
    this.queued = 0;
    this.queuedBytes = 0;
    this.end("closed");
    this.finish();
  }

  /**
   * Writes the stream into `sink` from now on; resolves when it has finished. The sink's drain
   * listener resumes writing after a `write` returned false.
   */
  attach(sink: ChunkSink): Promise<void> {
    if (!this.finished) {
      this.sink = sink;
      this.unsubscribe = sink.onDrain(() => {
        this.blocked = false;
        this.flushOut();
      });
      this.flushOut();
    }
    return this.done;
  }

  /** Without a sink: waits for the next chunk; undefined once ended and drained. */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      if (this.head < this.items.length) return this.take();
      if (this.ended) {
        this.finish();
        return undefined;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private enqueue(item: string | Uint8Array, events: number): void {
    this.items.push(item);
    this.counts.push(events);
    this.queued += events;
    if (events > 0) this.queuedBytes += item.length;
    this.flushOut();
  }

  /** Hands queued output to the sink while it takes it, or wakes a waiting `next()`. */
  private flushOut(): void {
    const sink = this.sink;
    if (sink === undefined) {
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
      return;
    }
    while (!this.blocked && this.head < this.items.length) this.blocked = !sink.write(this.take());
    if (this.ended && this.head === this.items.length) this.finish();
  }

  /** Takes queued items from the head, up to about CHUNK_BYTES, as one chunk. */
  private take(): Uint8Array {
    const parts: Uint8Array[] = [];
    let strings: string[] = [];
    let size = 0;
    while (this.head < this.items.length && (size === 0 || size + (this.items[this.head]?.length ?? 0) <= CHUNK_BYTES)) {
      const item = this.items[this.head] ?? "";
      const events = this.counts[this.head] ?? 0;
      this.queued -= events;
      if (events > 0) this.queuedBytes -= item.length;
      this.head++;
      // String length stands in for its UTF-8 size: the cut only needs to be about right.
      size += item.length;
      if (typeof item === "string") {
        strings.push(item);
        continue;
      }
      if (strings.length > 0) {
        parts.push(Buffer.from(strings.join("")));
        strings = [];
      }
      parts.push(item);
    }
    if (strings.length > 0) parts.push(Buffer.from(strings.join("")));
    if (this.head === this.items.length) {
      this.items = [];
      this.counts = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
    return parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.sink = undefined;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    this.resolveDone();
  }
}
