/**
 * In-process fan-out of committed changes to watchers, shared by the backends.
 *
 * Gap-free hand-over from history to live events relies on one invariant the backends
 * uphold: a commit and its `publish` happen in the same synchronous block, so no commit can
 * fall between a watcher subscribing and it reading the current revision (the replay bound).
 */
import type { WatchEvent } from "./interface.js";
import { closedError, compactedError } from "./util.js";

/** The history a backend exposes to watchers. */
export interface WatchSource {
  currentRevision(): number;
  compactedRevision(): number;
  /**
   * Committed events with `after < revision <= upTo` whose key starts with prefix, in
   * revision order, at most `limit`. Only called while `after >= compactedRevision()`.
   */
  readEvents(prefix: string, after: number, upTo: number, limit: number): WatchEvent[];
}

interface Listener {
  deliver(events: readonly WatchEvent[]): void;
  /** Ends the watch; with `drain`, live events already queued are still yielded first. */
  end(drain: boolean): void;
}

/** History is replayed in pages of this many events so a far-behind watcher does not load it all at once. */
const REPLAY_PAGE = 1000;

export class WatchHub {
  private readonly listeners = new Set<Listener>();
  private closed = false;

  constructor(private readonly source: WatchSource) {}

  /** Number of live watchers (exposed for leak checks). */
  get watcherCount(): number {
    return this.listeners.size;
  }

  /** Delivers committed events (ascending revisions) to every watcher. */
  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0) return;
    for (const listener of this.listeners) listener.deliver(events);
  }

  /**
   * Ends every watch and refuses new ones. Watchers first yield the events already
   * published to them (a watcher still replaying history ends at once), then return.
   */
  close(): void {
    this.closed = true;
    for (const listener of [...this.listeners]) listener.end(true);
    this.listeners.clear();
  }

  /**
   * Implements Storage.watch. The iterator throws on its first next() with Compacted when
   * fromRevision < compactedRevision, and may throw Compacted later if a compaction overtakes
   * a watcher that is still replaying history (like etcd cancelling a lagging watch).
   *
   * The live queue is unbounded: a consumer that stops reading keeps accumulating events.
   * Slow consumers are meant to sit behind a watch cache, which bounds its own buffers.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent> {
    return this.stream(prefix, fromRevision, signal);
  }

  private async *stream(prefix: string, fromRevision: number, signal: AbortSignal): AsyncGenerator<WatchEvent, void, undefined> {
    if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) {
      throw new TypeError(`invalid watch revision ${String(fromRevision)}`);
    }
    if (this.closed) throw closedError(prefix);
    if (signal.aborted) return;
    const compacted = this.source.compactedRevision();
    if (fromRevision < compacted) throw compactedError(prefix, fromRevision, compacted);

    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false; // stop now
    let draining = false; // stop once the live queue is empty
    const wakeUp = (): void => {
      const resolve = wake;
      wake = undefined;
      resolve?.();
    };
    const listener: Listener = {
      deliver: (events) => {
        for (const event of events) if (event.key.startsWith(prefix)) queue.push(event);
        if (queue.length > 0) wakeUp();
      },
      end: (drain) => {
        if (drain) draining = true;
        else {
          ended = true;
          queue.length = 0;
        }
        this.listeners.delete(listener);
        wakeUp();
      },
    };
    const onAbort = (): void => listener.end(false);

    // Subscribe and take the replay bound in one synchronous step (see file comment).
    this.listeners.add(listener);
    signal.addEventListener("abort", onAbort, { once: true });
    const replayUpTo = this.source.currentRevision();
    try {
      let last = fromRevision;
      while (last < replayUpTo) {
        if (ended || draining) return; // closing mid-replay: live events alone would leave a gap
        const oldest = this.source.compactedRevision();
        if (last < oldest) throw compactedError(prefix, last, oldest);
        const page = this.source.readEvents(prefix, last, replayUpTo, REPLAY_PAGE);
        for (const event of page) {
          yield event;
          if (ended) return;
          last = event.revision;
        }
        if (page.length < REPLAY_PAGE) break;
      }
      // Live events are all newer than replayUpTo; `last` also drops any event <= fromRevision.
      last = Math.max(last, replayUpTo);
      while (!ended) {
        if (queue.length === 0) {
          if (draining) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        const batch = queue.splice(0, queue.length);
        for (const event of batch) {
          if (event.revision <= last) continue;
          yield event;
          if (ended) return;
          last = event.revision;
        }
      }
    } finally {
      this.listeners.delete(listener);
      signal.removeEventListener("abort", onAbort);
    }
  }
}
