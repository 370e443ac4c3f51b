/**
 * Watch fan-out: a fleet of watchers in child processes (each watch on its own TLS connection, or
 * as streams over a few HTTP/2 connections), and a paced writer in this process that records when
 * each write was sent and acknowledged. The watchers are processes, not threads of this one, so
 * reading 1,000 watches does not compete with the writer for an event loop, a heap or a collector;
 * they share the machine's monotonic clock. Per phase: every event at every watcher is matched by
 * its resourceVersion to the write that made it; delay = arrival − ack (and − the write being sent).
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Client, Target } from "./client.js";
import { configMapBody } from "./objects.js";
import { pacedCalls } from "./paced.js";
import { busiestThreadPercent, machineBusyCpuSeconds, processCpuSeconds, processMemory, threadCpuSeconds } from "./processes.js";
import { round, summarise, type LatencySummary } from "./stats.js";
import {
  monotonicMs,
  WATCH_TASK_ENV,
  type FromWatchWorker,
  type ToWatchWorker,
  type WatchCollected,
  type WatchProtocol,
  type WatchWorkerTask,
} from "./watch-types.js";

export interface FleetSpec {
  readonly protocol: WatchProtocol;
  readonly watchers: number;
  /** Watcher processes (each gets a share of the watchers). */
  readonly workers: number;
  /** h2: connections per watcher process (the streams are spread over them). */
  readonly sessionsPerWorker: number;
  readonly target: Target;
  readonly path: string;
  readonly openConcurrency: number;
}

export interface FleetOpening {
  readonly opened: number;
  readonly failed: number;
  readonly firstError?: string;
  /** Until the last process had all its watches answered (headers received). */
  readonly openS: number;
  readonly workers: number;
  readonly connections: number;
}

interface Pending {
  readonly type: FromWatchWorker["type"];
  readonly resolve: (message: FromWatchWorker) => void;
  readonly reject: (error: Error) => void;
}

/** One watcher process and the request/reply exchange with it (one outstanding request at a time). */
class WatcherProcess {
  private pending: Pending | undefined;
  private failure: Error | undefined;
  readonly child: ChildProcess;

  constructor(task: WatchWorkerTask) {
    this.child = fork(fileURLToPath(new URL("./watch-worker.js", import.meta.url)), [], {
      env: { ...process.env, [WATCH_TASK_ENV]: JSON.stringify(task) },
      // Float64Arrays of delays travel as typed arrays, not as JSON.
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child.on("message", (message: FromWatchWorker) => {
      if (message.type === "failed") {
        this.fail(new Error(`watch process ${task.workerIndex}: ${message.message}`));
        return;
      }
      const pending = this.pending;
      if (pending !== undefined && pending.type === message.type) {
        this.pending = undefined;
        pending.resolve(message);
      }
    });
    this.child.once("error", (error) => this.fail(error));
    this.child.once("exit", (code, signal) => this.fail(new Error(`watch process ${task.workerIndex} exited (${code ?? signal ?? "?"})`)));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }

  /** Waits for the next message of `type`, after sending `message` (if any). */
  expect<T extends FromWatchWorker["type"]>(type: T, message?: ToWatchWorker): Promise<Extract<FromWatchWorker, { type: T }>> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { type, resolve: (reply) => resolve(reply as Extract<FromWatchWorker, { type: T }>), reject };
      if (message !== undefined) this.child.send(message);
    });
  }

  /** Ends the process (after `close`, or when it hangs). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    await exited;
  }
}

export interface DrainResult {
  readonly complete: boolean;
  readonly minReceived: number;
}

export interface FleetCollected {
  readonly delaysMs: Float64Array;
  readonly fromIssueMs: Float64Array;
  readonly matched: number;
  readonly unmatched: number;
  readonly closedByServer: number;
  readonly errorEvents: number;
  readonly firstServerClose?: string;
  readonly bytes: number;
  readonly chunks: number;
}

/** The watchers of one configuration, open across the write phases run on them. */
export class WatchFleet {
  private constructor(
    private readonly threads: readonly WatcherProcess[],
    readonly opening: FleetOpening,
  ) {}

  static async open(spec: FleetSpec): Promise<WatchFleet> {
    const workers = Math.max(1, Math.min(spec.workers, spec.watchers));
    const started = monotonicMs();
    const threads = Array.from({ length: workers }, (_, index) => {
      const share = Math.floor(spec.watchers / workers) + (index < spec.watchers % workers ? 1 : 0);
      return new WatcherProcess({
        protocol: spec.protocol,
        target: spec.target,
        path: spec.path,
        watchers: share,
        sessions: spec.sessionsPerWorker,
        workerIndex: index,
        openConcurrency: spec.openConcurrency,
      });
    });
    const replies = await Promise.all(threads.map((thread) => thread.expect("opened")));
    const firstError = replies.find((reply) => reply.firstError !== undefined)?.firstError;
    const opening: FleetOpening = {
      opened: replies.reduce((sum, reply) => sum + reply.opened, 0),
      failed: replies.reduce((sum, reply) => sum + reply.failed, 0),
      ...(firstError === undefined ? {} : { firstError }),
      openS: round((monotonicMs() - started) / 1000),
      workers,
      connections: spec.protocol === "h1" ? spec.watchers : threads.length * Math.min(spec.sessionsPerWorker, Math.ceil(spec.watchers / workers)),
    };
    return new WatchFleet(threads, opening);
  }

  /** The watcher processes (their CPU is the client's, beside this process's). */
  get pids(): number[] {
    return this.threads.map((thread) => thread.pid);
  }

  async drain(expectedPerWatcher: number, stallMs: number, timeoutMs: number): Promise<DrainResult> {
    const replies = await Promise.all(this.threads.map((thread) => thread.expect("drained", { type: "drain", expectedPerWatcher, stallMs, timeoutMs })));
    return { complete: replies.every((reply) => reply.complete), minReceived: Math.min(...replies.map((reply) => reply.minReceived)) };
  }

  async collect(fromRevision: number, acks: Float64Array, issued: Float64Array): Promise<FleetCollected> {
    const replies: WatchCollected[] = (
      await Promise.all(this.threads.map((thread) => thread.expect("collected", { type: "collect", fromRevision, acks, issued })))
    ).map((reply) => reply.collected);
    const total = replies.reduce((sum, reply) => sum + reply.delaysMs.length, 0);
    const delays = new Float64Array(total);
    const fromIssue = new Float64Array(total);
    let offset = 0;
    for (const reply of replies) {
      delays.set(reply.delaysMs, offset);
      fromIssue.set(reply.fromIssueMs, offset);
      offset += reply.delaysMs.length;
    }
    const firstServerClose = replies.find((reply) => reply.firstServerClose !== undefined)?.firstServerClose;
    const sum = (field: "matched" | "unmatched" | "closedByServer" | "errorEvents" | "bytes" | "chunks"): number =>
      replies.reduce((total, reply) => total + reply[field], 0);
    return {
      delaysMs: delays,
      fromIssueMs: fromIssue,
      matched: sum("matched"),
      unmatched: sum("unmatched"),
      closedByServer: sum("closedByServer"),
      errorEvents: sum("errorEvents"),
      ...(firstServerClose === undefined ? {} : { firstServerClose }),
      bytes: sum("bytes"),
      chunks: sum("chunks"),
    };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.map(async (thread) => {
        await thread.expect("closed", { type: "close" }).catch(() => undefined);
        await thread.stop();
      }),
    );
  }
}

// ---------------------------------------------------------------- writer

export interface WriteRun {
  /** resourceVersion → monotonic ms of the acknowledgement (response fully received). */
  readonly acks: Map<number, number>;
  /** resourceVersion → monotonic ms the write's request was sent. */
  readonly issuedAt: Map<number, number>;
  readonly latenciesMs: Float64Array;
  readonly issued: number;
  readonly failed: number;
  readonly firstError?: string;
  readonly firstIssuedAt: number;
  readonly lastAckAt: number;
}

const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/;

/**
 * Open-loop writer at a fixed rate: write i is issued at start + i/rate whatever the previous
 * ones are doing (at most `maxInFlight` outstanding). Even writes create a new ConfigMap, odd
 * ones merge-patch one of a pool of existing ones, so watchers see ADDED and MODIFIED events.
 */
export class PacedWriter {
  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly pool: readonly string[],
    private readonly bodyBytes: number,
  ) {}

  async run(tag: string, rate: number, durationMs: number, maxInFlight = 256): Promise<WriteRun> {
    const path = `/api/v1/namespaces/${this.namespace}/configmaps`;
    const count = Math.max(1, Math.round((rate * durationMs) / 1000));
    const acks = new Map<number, number>();
    const issuedAt = new Map<number, number>();
    const latencies: number[] = [];
    let failed = 0;
    let firstError: string | undefined;
    let lastAckAt = 0;
    const write = async (index: number): Promise<void> => {
      const began = monotonicMs();
      try {
        const reply =
          index % 2 === 0
            ? await this.client.request("POST", path, configMapBody(this.namespace, `${tag}-${index}`, this.bodyBytes), true)
            : await this.client.request(
                "PATCH",
                `${path}/${this.pool[(index >> 1) % this.pool.length] ?? ""}`,
                JSON.stringify({ data: { sequence: `${tag}-${index}` } }),
                true,
                "application/merge-patch+json",
              );
        const ackAt = monotonicMs();
        const match = reply.status === 200 || reply.status === 201 ? RESOURCE_VERSION.exec(String(reply.body ?? "")) : null;
        if (match === null) {
          failed++;
          firstError ??= `HTTP ${reply.status} ${String(reply.body ?? "").slice(0, 200)}`;
          return;
        }
        acks.set(Number(match[1]), ackAt);
        issuedAt.set(Number(match[1]), began);
        latencies.push(ackAt - began);
        lastAckAt = Math.max(lastAckAt, ackAt);
      } catch (error) {
        failed++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    };
    const start = await pacedCalls(count, rate, write, maxInFlight);
    return {
      acks,
      issuedAt,
      latenciesMs: Float64Array.from(latencies),
      issued: count,
      failed,
      ...(firstError === undefined ? {} : { firstError }),
      firstIssuedAt: start,
      lastAckAt,
    };
  }
}

// ---------------------------------------------------------------- one phase

export interface FanoutPhase {
  readonly label: string;
  readonly protocol: WatchProtocol;
  readonly watchers: number;
  readonly connections: number;
  readonly workers: number;
  readonly targetWritesPerSecond: number;
  readonly writes: {
    readonly issued: number;
    readonly acked: number;
    readonly failed: number;
    readonly firstError?: string;
    readonly perSecond: number;
    readonly latency: LatencySummary;
  };
  readonly events: {
    readonly expected: number;
    readonly received: number;
    readonly lost: number;
    readonly lostPercent: number;
    /** Events with a resourceVersion the writer did not acknowledge in this phase. */
    readonly unmatched: number;
    readonly errorEvents: number;
    readonly perSecond: number;
    /** Average events per read at a watcher: how much the server batched. */
    readonly perRead: number;
  };
  /** Watches the server ended during this phase. */
  readonly closedByServer: number;
  readonly firstServerClose?: string;
  /** Event arrival − write acknowledgement; negative = the event arrived before the writer's 201/200. */
  readonly delay: LatencySummary & { readonly minMs: number };
  /** Event arrival − the write's request being sent: commit + fan-out, never negative. */
  readonly delayFromIssue: LatencySummary;
  /** From the last acknowledgement until every watcher had every event (or the drain gave up). */
  readonly drainMs: number;
  readonly drainComplete: boolean;
  readonly receivedMBPerSecond: number;
  readonly serverCpuPercent: number;
  readonly serverRssMB: number;
  /** The bench process (writer) and its watcher processes, % of one core. */
  readonly clientCpuPercent: number;
  readonly busiestClientThreadPercent: number;
  readonly otherCpuPercent: number;
  readonly windowS: number;
  /** The phase on the monotonic clock, µs (lines it up with a .cpuprofile). */
  readonly windowUs: { readonly from: number; readonly to: number };
}

/** After the writes: give up waiting for missing events after this long without progress, or in all. */
export const DRAIN_STALL_MS = 5000;
export const DRAIN_TIMEOUT_MS = 60_000;

export interface PhaseInput {
  readonly label: string;
  readonly fleet: WatchFleet;
  readonly spec: FleetSpec;
  readonly writer: PacedWriter;
  readonly rate: number;
  readonly durationMs: number;
  readonly serverPid: number;
  /** Events each open watcher has been sent before this phase (cumulative expectation). */
  readonly expectedBefore: number;
  /** Watches the server had closed before this phase. */
  readonly closedBefore: number;
  readonly tag: string;
}

/** CPU seconds of the bench process and its watcher processes. */
function clientCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
}

/** CPU seconds of every thread of the bench process and its watcher processes (thread ids are unique machine-wide). */
function clientThreads(pids: readonly number[]): Map<number, number> {
  return new Map(pids.flatMap((pid) => [...threadCpuSeconds(pid)]));
}

export async function runFanoutPhase(input: PhaseInput): Promise<{ phase: FanoutPhase; expectedAfter: number; closedAfter: number }> {
  const { fleet } = input;
  const openAtStart = fleet.opening.opened - input.closedBefore;
  const serverCpuStart = processCpuSeconds(input.serverPid);
  const clientPids = [process.pid, ...fleet.pids];
  const clientCpuStart = clientCpuSeconds(clientPids);
  const threadsStart = clientThreads(clientPids);
  const machineStart = machineBusyCpuSeconds();
  const started = monotonicMs();
  const writes = await input.writer.run(input.tag, input.rate, input.durationMs);
  const acked = writes.acks.size;
  const expectedAfter = input.expectedBefore + acked;
  const drain = await fleet.drain(expectedAfter, DRAIN_STALL_MS, DRAIN_TIMEOUT_MS);
  const drainedAt = monotonicMs();
  const windowS = Math.max(1e-3, (drainedAt - started) / 1000);
  const serverCpu = processCpuSeconds(input.serverPid) - serverCpuStart;
  const ownCpu = clientCpuSeconds(clientPids) - clientCpuStart;
  const busiest = busiestThreadPercent(threadsStart, clientThreads(clientPids), windowS);
  const machineCpu = machineBusyCpuSeconds() - machineStart;
  const serverRssMB = processMemory(input.serverPid).rssMB;
  const revisions = [...writes.acks.keys()];
  const from = revisions.length === 0 ? 0 : Math.min(...revisions);
  const to = revisions.length === 0 ? -1 : Math.max(...revisions);
  const table = new Float64Array(Math.max(0, to - from + 1)).fill(Number.NaN);
  const issued = new Float64Array(table.length).fill(Number.NaN);
  for (const [revision, ackAt] of writes.acks) table[revision - from] = ackAt;
  for (const [revision, issuedAt] of writes.issuedAt) issued[revision - from] = issuedAt;
  const collected = await fleet.collect(from, table, issued);
  const expected = acked * openAtStart;
  const lost = Math.max(0, expected - collected.matched);
  const summary = summarise(collected.delaysMs);
  let minMs = Number.POSITIVE_INFINITY;
  for (const delay of collected.delaysMs) if (delay < minMs) minMs = delay;
  const writeWindowS = Math.max(1e-3, (writes.lastAckAt - writes.firstIssuedAt) / 1000);
  const phase: FanoutPhase = {
    label: input.label,
    protocol: input.spec.protocol,
    watchers: fleet.opening.opened,
    connections: fleet.opening.connections,
    workers: fleet.opening.workers,
    targetWritesPerSecond: input.rate,
    writes: {
      issued: writes.issued,
      acked,
      failed: writes.failed,
      ...(writes.firstError === undefined ? {} : { firstError: writes.firstError }),
      perSecond: round(acked / writeWindowS),
      latency: roundSummary(summarise(writes.latenciesMs)),
    },
    events: {
      expected,
      received: collected.matched,
      lost,
      lostPercent: expected === 0 ? 0 : round((lost / expected) * 100),
      unmatched: collected.unmatched,
      errorEvents: collected.errorEvents,
      perSecond: round(collected.matched / windowS),
      perRead: collected.chunks === 0 ? 0 : round((collected.matched + collected.unmatched) / collected.chunks),
    },
    closedByServer: collected.closedByServer - input.closedBefore,
    ...(collected.firstServerClose === undefined ? {} : { firstServerClose: collected.firstServerClose }),
    delay: { ...roundSummary(summary), minMs: round(Number.isFinite(minMs) ? minMs : Number.NaN) },
    delayFromIssue: roundSummary(summarise(collected.fromIssueMs)),
    drainMs: round(Math.max(0, drainedAt - writes.lastAckAt)),
    drainComplete: drain.complete,
    receivedMBPerSecond: round(collected.bytes / windowS / (1 << 20)),
    serverCpuPercent: round((serverCpu / windowS) * 100),
    serverRssMB: round(serverRssMB),
    clientCpuPercent: round((ownCpu / windowS) * 100),
    busiestClientThreadPercent: round(busiest),
    otherCpuPercent: round((Math.max(0, machineCpu - serverCpu - ownCpu) / windowS) * 100),
    windowS: round(windowS),
    windowUs: { from: Math.round(started * 1000), to: Math.round(drainedAt * 1000) },
  };
  return { phase, expectedAfter, closedAfter: collected.closedByServer };
}

function roundSummary(summary: LatencySummary): LatencySummary {
  return {
    count: summary.count,
    meanMs: round(summary.meanMs),
    p50Ms: round(summary.p50Ms),
    p90Ms: round(summary.p90Ms),
    p99Ms: round(summary.p99Ms),
    maxMs: round(summary.maxMs),
  };
}
