/** What the watch fan-out coordinator and its watcher processes exchange (IPC, structured clone). */
import type { Target } from "./client.js";

/**
 * h1: every watch on its own TLS connection (HTTP/1.1, no agent, no keep-alive).
 * h2: the watches are streams spread over a few HTTP/2 connections.
 */
export type WatchProtocol = "h1" | "h2";

export interface WatchWorkerTask {
  readonly protocol: WatchProtocol;
  readonly target: Target;
  /** The watch request, e.g. /api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=N. */
  readonly path: string;
  /** This process's share of the watchers. */
  readonly watchers: number;
  /** h2: this process's streams are spread over this many sessions (connections). */
  readonly sessions: number;
  readonly workerIndex: number;
  /** Watches being opened at once by this process (TLS handshakes in flight). */
  readonly openConcurrency: number;
}

export type ToWatchWorker =
  /** Reply `drained` once every open watch has `expectedPerWatcher` events (cumulative), or progress stalls. */
  | { readonly type: "drain"; readonly expectedPerWatcher: number; readonly stallMs: number; readonly timeoutMs: number }
  /**
   * Match the events recorded since the last collect against the writer's acknowledgements:
   * acks[rv - fromRevision] is the monotonic ms the write of rv was acknowledged (NaN: not ours),
   * issued[rv - fromRevision] when its request was sent.
   */
  | { readonly type: "collect"; readonly fromRevision: number; readonly acks: Float64Array; readonly issued: Float64Array }
  | { readonly type: "close" };

export interface WatchCollected {
  /** Arrival − acknowledgement of every matched event, ms. */
  readonly delaysMs: Float64Array;
  /** Arrival − the write's request being sent (commit + fan-out), ms. */
  readonly fromIssueMs: Float64Array;
  readonly matched: number;
  /** Events whose resourceVersion the writer did not acknowledge (or not in this phase). */
  readonly unmatched: number;
  /** Watches the server ended (stream end, reset, socket error) before we closed them; cumulative. */
  readonly closedByServer: number;
  /** ERROR events received; cumulative. */
  readonly errorEvents: number;
  readonly firstServerClose?: string;
  /** Body bytes received since the last collect. */
  readonly bytes: number;
  /** Data chunks (reads) since the last collect: events per chunk shows the server's batching. */
  readonly chunks: number;
}

export type FromWatchWorker =
  | { readonly type: "opened"; readonly opened: number; readonly failed: number; readonly firstError?: string; readonly openMs: number }
  | { readonly type: "drained"; readonly complete: boolean; readonly minReceived: number; readonly waitedMs: number }
  | { readonly type: "collected"; readonly collected: WatchCollected }
  | { readonly type: "closed" }
  | { readonly type: "failed"; readonly message: string };

/** Monotonic ms, comparable across threads and processes on this machine (CLOCK_MONOTONIC, as .cpuprofile timestamps). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The environment variable that hands a watcher process its task (JSON). */
export const WATCH_TASK_ENV = "BENCH_WATCH_TASK";
