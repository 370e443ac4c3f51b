/**
 * etcd's own watch delay, measured the way the server's watch phase is, with no orch server in
 * between: a paced writer in this process puts ~1 KiB values at `rate`/s (one Txn with one Put
 * each, open loop: a put is sent on schedule whether or not the earlier ones were answered) and
 * `watchers` etcd watch streams of the same prefix (this process, one gRPC channel: watchers and
 * writer share this event loop, like the server's one-thread watch phase) record each event's
 * arrival. Delay = arrival − the put being sent, and − its acknowledgement. The figure is etcd's
 * commit and event delivery on this machine (and the client's decode): the floor under the
 * server's watch delay, which adds the server's own write path, cache and fan-out.
 */
import { grpcLibrary } from "../../src/storage/etcd/etcd-client.js";
import { EtcdClient } from "../../src/storage/etcd/etcd-client.js";
import { prefixEnd } from "../../src/storage/etcd/etcd-keys.js";
import type { WatchResponse } from "../../src/storage/etcd/etcd-api.js";
import { round, summarise, type LatencySummary } from "./stats.js";
import { pacedCalls } from "./paced.js";
import { monotonicMs } from "./watch-types.js";

export interface RawWatchResult {
  readonly watchers: number;
  readonly rate: number;
  readonly putsPerSecond: number;
  readonly failedPuts: number;
  readonly putLatency: LatencySummary;
  readonly events: { readonly expected: number; readonly received: number };
  readonly delayFromSend: LatencySummary;
  readonly delayFromAck: LatencySummary;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export async function measureRawEtcdWatch(
  endpoints: readonly string[],
  options: { readonly watchers: number; readonly rate: number; readonly seconds: number; readonly tag: string },
): Promise<RawWatchResult> {
  const client = new EtcdClient({ endpoints });
  const prefix = Buffer.from(`/bench-raw-watch/${options.tag}/`);
  const count = Math.max(1, Math.round(options.rate * options.seconds));
  const sentAt = new Float64Array(count).fill(Number.NaN);
  const ackAt = new Float64Array(count).fill(Number.NaN);
  const arrivals: { readonly index: number; readonly at: number }[] = [];
  const streams: ReturnType<EtcdClient["watchStream"]>[] = [];
  try {
    let created = 0;
    const allCreated = new Promise<void>((resolve) => {
      for (let watcher = 0; watcher < options.watchers; watcher++) {
        const metadata = new (grpcLibrary().Metadata)();
        const stream = client.watchStream(metadata);
        stream.on("data", (response: WatchResponse) => {
          if (response.created && ++created === options.watchers) resolve();
          const at = monotonicMs();
          for (const event of response.events) {
            const key = Buffer.from(event.kv?.key ?? []).toString("latin1");
            arrivals.push({ index: Number(key.slice(prefix.length)), at });
          }
        });
        stream.on("error", () => {});
        stream.write({ createRequest: { key: prefix, rangeEnd: prefixEnd(prefix), startRevision: 0, progressNotify: false, prevKv: false } });
        streams.push(stream);
      }
    });
    await allCreated;
    const value = Buffer.alloc(1024, "x");
    let failedPuts = 0;
    const start = await pacedCalls(count, options.rate, async (at) => {
      sentAt[at] = monotonicMs();
      await client.txn({ compare: [], success: [{ requestPut: { key: Buffer.concat([prefix, Buffer.from(String(at))]), value } }], failure: [] }, "").then(
        () => {
          ackAt[at] = monotonicMs();
        },
        () => {
          failedPuts++;
        },
      );
    });
    const elapsedS = (monotonicMs() - start) / 1000;
    // Stragglers: wait until every watcher has every acknowledged put, at most 5 s.
    const expected = (count - failedPuts) * options.watchers;
    for (let waited = 0; arrivals.length < expected && waited < 5000; waited += 20) await sleep(20);
    const fromSend = new Float64Array(arrivals.length);
    const fromAck = new Float64Array(arrivals.length);
    arrivals.forEach((arrival, position) => {
      fromSend[position] = arrival.at - (sentAt[arrival.index] ?? Number.NaN);
      fromAck[position] = arrival.at - (ackAt[arrival.index] ?? Number.NaN);
    });
    const latencies = Float64Array.from(sentAt.map((sent, index) => (ackAt[index] ?? Number.NaN) - sent).filter((latency) => Number.isFinite(latency)));
    return {
      watchers: options.watchers,
      rate: options.rate,
      putsPerSecond: round(count / elapsedS),
      failedPuts,
      putLatency: summarise(latencies),
      events: { expected, received: arrivals.length },
      delayFromSend: summarise(fromSend.filter((delay) => Number.isFinite(delay))),
      delayFromAck: summarise(fromAck.filter((delay) => Number.isFinite(delay))),
    };
  } finally {
    for (const stream of streams) stream.cancel();
    client.close();
  }
}
