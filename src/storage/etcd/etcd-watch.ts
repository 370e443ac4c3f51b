/**
 * One Storage.watch on one etcd watch stream. etcd sends a range's changes from a start
 * revision in revision order, with the previous value when asked; a start revision etcd has
 * compacted away cancels the watch with the compaction revision. The stream is opened with
 * `hasleader` so a member that loses its leader ends the watch instead of going silent.
 */
import { StorageError } from "../errors.js";
import type { WatchEvent, WatchOptions } from "../interface.js";
import { closedError, compactedError } from "../util.js";
import type { EtcdClient } from "./etcd-client.js";
import { grpcLibrary, translateError } from "./etcd-client.js";
import type { EtcdEvent, WatchResponse } from "./etcd-api.js";

/** What a watch needs from its store (revisions are the store's, i.e. etcd's minus the offset). */
export interface WatchHost {
  readonly client: EtcdClient;
  /** etcd revision = store revision + offset. */
  readonly offset: number;
  encode(key: string): Buffer;
  rangeEnd(key: string): Buffer;
  toEvent(event: EtcdEvent): WatchEvent | undefined;
  /** Called with every response header's etcd revision. */
  observe(etcdRevision: number): void;
  /** Called when etcd reports a compaction (etcd revision). */
  observeCompaction(etcdRevision: number): void;
  compactedRevision(): number;
  isClosed(): boolean;
  /** Resolves once the store knows etcd's compaction point. */
  ready(): Promise<void>;
  register(watch: DrainableWatch): void;
  unregister(watch: DrainableWatch): void;
  /**
   * Whether the keys under `prefix` read at store revision `to` are those read at `from` (none
   * written in between and still there, as many keys): a catching-up watch (below) asks it to learn
   * that what is left of its backlog changes nothing, as when etcd's revision at its creation was
   * a write outside the prefix, which no event will ever reach.
   */
  unchangedBetween(prefix: string, from: number, to: number): Promise<boolean>;
}

/** What the store does to a live watch: close() lets it deliver up to a revision, then ends it; a consistent read asks it for progress. */
export interface DrainableWatch {
  drain(storeRevision: number): Promise<void>;
  requestProgress(): void;
}

/** A progress notification waiting in the queue behind the events before it. */
interface Progress {
  readonly progress: number;
}

/** How often a draining watch asks etcd for progress until it reaches its target. */
const PROGRESS_RETRY_MS = 50;

export async function* etcdWatch(
  host: WatchHost,
  prefix: string,
  fromRevision: number,
  signal: AbortSignal,
  options: WatchOptions = {},
): AsyncGenerator<WatchEvent, void, undefined> {
  if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) throw new TypeError(`invalid watch revision ${String(fromRevision)}`);
  if (host.isClosed()) throw closedError(prefix);
  if (signal.aborted) return;
  await host.ready();
  if (signal.aborted) return;
  const compacted = host.compactedRevision();
  if (fromRevision < compacted) throw compactedError(prefix, fromRevision, compacted);

  const queue: (WatchEvent | Progress)[] = [];
  let failure: Error | undefined;
  let ended = false;
  /** Store revision up to which etcd has told us everything (events or a progress notification). */
  let reached = fromRevision;
  let drainTarget: number | undefined;
  /**
   * Set while etcd may still be sending the events from before the watch was created (it started
   * behind etcd's revision at creation: a resumed watch after etcd came back). etcd before
   * 3.4.25/3.5.8 answers a progress request at once with its current revision, ahead of those
   * events (etcd-io/etcd#15220): a consistent read served then missed writes. Progress
   * notifications are not taken until an event at or past that revision arrives (events come in
   * order, so all before it have); fixed etcd sends none before then anyway. The last writes up
   * to it are often outside the prefix (another tenant, `compact_rev_key`) and send no event: a
   * progress notification during the catch-up therefore has the store checked
   * (`unchangedBetween` from the last event to that revision) and, when nothing under the prefix
   * changed there, the catch-up ends and the next notification is taken.
   */
  let catchingUpTo: number | undefined;
  /** The newest event's revision (fromRevision before any). */
  let eventsUpTo = fromRevision;
  let checkingCatchUp = false;
  let wake: (() => void) | undefined;
  const wakeUp = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const drainWaiters: (() => void)[] = [];
  const checkDrained = (): void => {
    if (drainTarget !== undefined && reached >= drainTarget) {
      for (const resolve of drainWaiters.splice(0)) resolve();
    }
  };

  const onResponse = (response: WatchResponse): void => {
    if (ended) return;
    if (response.header.revision > 0) host.observe(response.header.revision);
    if (response.compactRevision > 0) {
      host.observeCompaction(response.compactRevision);
      failure = compactedError(prefix, fromRevision, host.compactedRevision());
      wakeUp();
      return;
    }
    if (response.canceled) {
      failure = new StorageError("Unavailable", prefix, { message: `etcd cancelled the watch: ${response.cancelReason}` });
      wakeUp();
      return;
    }
    if (response.created && response.header.revision - host.offset > fromRevision) catchingUpTo = response.header.revision - host.offset;
    for (const event of response.events) {
      if (catchingUpTo !== undefined && event.kv !== null) {
        eventsUpTo = Math.max(eventsUpTo, event.kv.modRevision - host.offset);
        if (event.kv.modRevision - host.offset >= catchingUpTo) catchingUpTo = undefined;
      }
      const converted = host.toEvent(event);
      if (converted === undefined) continue;
      queue.push(converted);
      reached = Math.max(reached, converted.revision);
    }
    // A response without events (and not the creation) is a progress notification: every
    // change up to its header revision has been sent.
    if (response.events.length === 0 && !response.created) {
      if (catchingUpTo === undefined) {
        reached = Math.max(reached, response.header.revision - host.offset);
        if (options.onProgress !== undefined) queue.push({ progress: response.header.revision - host.offset });
      } else if (!checkingCatchUp) checkCatchUp();
    }
    checkDrained();
    wakeUp();
  };
  /** Ends the catch-up when the store shows nothing under the prefix changed between the last event and its target. */
  const checkCatchUp = (): void => {
    const target = catchingUpTo;
    if (target === undefined || ended) return;
    checkingCatchUp = true;
    host.unchangedBetween(prefix, eventsUpTo, target).then(
      (unchanged) => {
        checkingCatchUp = false;
        if (unchanged && catchingUpTo === target) catchingUpTo = undefined;
      },
      () => {
        checkingCatchUp = false;
      },
    );
  };
  const stream = await host.client.watch({
    response: onResponse,
    error: (error) => {
      if (ended) return;
      failure = error.code === grpcLibrary().status.CANCELLED && host.isClosed() ? undefined : translateError(error, prefix);
      if (failure === undefined) ended = true;
      wakeUp();
    },
    end: () => {
      if (!ended && failure === undefined) failure = new StorageError("Unavailable", prefix, { message: "etcd ended the watch stream" });
      wakeUp();
    },
  });
  if (signal.aborted) {
    stream.cancel();
    return;
  }
  stream.send({
    createRequest: {
      key: host.encode(prefix),
      rangeEnd: host.rangeEnd(prefix),
      startRevision: fromRevision + host.offset + 1,
      progressNotify: true,
      prevKv: options.withoutPrevious !== true,
    },
  });

  let draining = false;
  let progressTimer: NodeJS.Timeout | undefined;
  const drainable: DrainableWatch = {
    requestProgress() {
      if (!ended) stream.send({ progressRequest: {} });
    },
    drain(target) {
      drainTarget = target;
      return new Promise<void>((resolve) => {
        drainWaiters.push(() => {
          draining = true;
          wakeUp();
          resolve();
        });
        checkDrained();
        if (!draining) {
          const ask = (): void => {
            if (ended || draining) return;
            stream.send({ progressRequest: {} });
            progressTimer = setTimeout(ask, PROGRESS_RETRY_MS);
          };
          ask();
        }
      });
    },
  };
  const onAbort = (): void => {
    ended = true;
    queue.length = 0;
    wakeUp();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  host.register(drainable);
  try {
    let last = fromRevision;
    let reported = fromRevision;
    for (;;) {
      if (ended) return;
      if (queue.length === 0) {
        if (failure !== undefined) throw failure;
        if (draining) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const batch = queue.splice(0, queue.length);
      for (const event of batch) {
        if ("progress" in event) {
          // Everything up to it was yielded above: the consumer may count it as reached. (It
          // does not move `last`: an etcd that sent it ahead of events, etcd-io/etcd#15220,
          // still gets those events through.)
          if (event.progress > reported) {
            reported = event.progress;
            options.onProgress?.(event.progress);
          }
          continue;
        }
        if (event.revision <= last) continue;
        if (draining && drainTarget !== undefined && event.revision > drainTarget) return;
        yield event;
        if (ended) return;
        last = event.revision;
      }
    }
  } finally {
    ended = true;
    if (progressTimer !== undefined) clearTimeout(progressTimer);
    for (const resolve of drainWaiters.splice(0)) resolve();
    host.unregister(drainable);
    signal.removeEventListener("abort", onAbort);
    stream.cancel();
  }
}
