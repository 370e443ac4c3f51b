/**
 * Runs one load phase: spreads the concurrency over worker threads, starts them together,
 * merges their latencies, and samples the CPU time of the target process and of this
 * process (whose threads are the load generator) over the measured window.
 */
import { Worker } from "node:worker_threads";
import type { Protocol, Target } from "./client.js";
import type { Scenario, WorkerMessage, WorkerResult, WorkerTask } from "./load-types.js";
import { machineBusyCpuSeconds, processCpuSeconds } from "./processes.js";
import { round, summarise, type LatencySummary } from "./stats.js";

export interface PhaseSpec {
  readonly name: string;
  readonly protocol: Protocol;
  readonly target: Target;
  readonly concurrency: number;
  readonly scenario: Scenario;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Worker threads generating the load (each gets a share of the concurrency). */
  readonly workers: number;
  /** The server process whose CPU time is sampled. */
  readonly serverPid?: number;
}

export interface PhaseResult {
  readonly name: string;
  readonly protocol: Protocol;
  readonly concurrency: number;
  readonly workers: number;
  readonly durationS: number;
  readonly requests: number;
  readonly perSecond: number;
  readonly latency: LatencySummary;
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests with an unexpected status or no answer. */
  readonly failures: number;
  readonly firstError?: string;
  readonly receivedMBPerSecond: number;
  /** CPU of the server and of the generator, in % of one core (the machine has 200 %). */
  readonly serverCpuPercent?: number;
  /** The server's CPU seconds over the measured window (user + system, all its threads). */
  readonly serverCpuSeconds?: number;
  /** Requests answered in the CPU window (the measured window plus the last answers' tail): divide serverCpuSeconds by it. */
  readonly cpuWindowRequests?: number;
  readonly generatorCpuPercent: number;
  /** CPU used by everything else on the machine (other people's tests, builds): should be near 0. */
  readonly otherCpuPercent: number;
  /** The measured window on the monotonic clock (process.hrtime), µs: lines it up with CPU profiles. */
  readonly windowUs: { readonly from: number; readonly to: number };
}

/** Epoch ms (performance.timeOrigin + now) → process.hrtime µs. */
function epochToMonotonicUs(epochMs: number): number {
  const offsetMs = Number(process.hrtime.bigint()) / 1e6 - (performance.timeOrigin + performance.now());
  return Math.round((epochMs + offsetMs) * 1000);
}

function runWorker(task: WorkerTask, started: Promise<number>): { ready: Promise<void>; result: Promise<WorkerResult> } {
  const worker = new Worker(new URL("./load-worker.js", import.meta.url), { workerData: task });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const result = new Promise<WorkerResult>((resolve, reject) => {
    worker.on("message", (message: WorkerMessage) => {
      if (message.type === "ready") {
        markReady();
        void started.then((startAt) => worker.postMessage({ type: "start", startAt } satisfies WorkerMessage));
      } else if (message.type === "result") {
        resolve(message.result);
        void worker.terminate();
      } else if (message.type === "failed") {
        reject(new Error(`load worker ${task.workerIndex}: ${message.message}`));
        void worker.terminate();
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`load worker ${task.workerIndex} exited (${code}) without a result`)));
  });
  ready.catch(() => {});
  return { ready: Promise.race([ready, result.then(() => undefined)]), result };
}

let phaseRuns = 0;

export async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const runId = `r${(++phaseRuns).toString(36)}${Date.now().toString(36).slice(-4)}`;
  const workers = Math.max(1, Math.min(spec.workers, spec.concurrency));
  let release: (startAt: number) => void = () => {};
  const started = new Promise<number>((resolve) => (release = resolve));
  const runs = Array.from({ length: workers }, (_, index) => {
    const share = Math.floor(spec.concurrency / workers) + (index < spec.concurrency % workers ? 1 : 0);
    return runWorker(
      {
        protocol: spec.protocol,
        target: spec.target,
        concurrency: share,
        workerIndex: index,
        runId,
        scenario: spec.scenario,
        warmupMs: spec.warmupMs,
        durationMs: spec.durationMs,
      },
      started,
    );
  });
  await Promise.all(runs.map((run) => run.ready));
  const startAt = performance.timeOrigin + performance.now() + 20;
  release(startAt);
  // CPU samples at the edges of the measured window.
  let serverCpuStart = 0;
  let ownCpuStart = process.cpuUsage();
  let machineCpuStart = machineBusyCpuSeconds();
  const sampleStart = new Promise<void>((resolve) =>
    setTimeout(
      () => {
        if (spec.serverPid !== undefined) serverCpuStart = processCpuSeconds(spec.serverPid);
        ownCpuStart = process.cpuUsage();
        machineCpuStart = machineBusyCpuSeconds();
        resolve();
      },
      Math.max(0, startAt + spec.warmupMs - (performance.timeOrigin + performance.now())),
    ),
  );
  const results = await Promise.all(runs.map((run) => run.result));
  await sampleStart;
  const sampledAt = performance.timeOrigin + performance.now();
  const serverCpuEnd = spec.serverPid === undefined ? 0 : processCpuSeconds(spec.serverPid);
  const ownCpu = process.cpuUsage(ownCpuStart);
  const machineCpu = machineBusyCpuSeconds() - machineCpuStart;
  const serverCpu = spec.serverPid === undefined ? 0 : serverCpuEnd - serverCpuStart;
  const generatorCpu = (ownCpu.user + ownCpu.system) / 1e6;
  const measureStart = Math.min(...results.map((result) => result.measureStart));
  const lastCompletion = Math.max(...results.map((result) => result.lastCompletion));
  const windowS = Math.max(1e-3, (lastCompletion - measureStart) / 1000);
  const cpuWindowS = Math.max(1e-3, (sampledAt - measureStart) / 1000);
  const latencies = new Float64Array(results.reduce((sum, result) => sum + result.latenciesMs.length, 0));
  let offset = 0;
  const statuses: Record<string, number> = {};
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  for (const result of results) {
    latencies.set(result.latenciesMs, offset);
    offset += result.latenciesMs.length;
    for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    errors += result.errors;
    bytes += result.bytes;
    firstError ??= result.firstError;
  }
  const expected = statuses[String(spec.scenario.expectStatus)] ?? 0;
  const failures = latencies.length - expected + errors;
  return {
    name: spec.name,
    protocol: spec.protocol,
    concurrency: spec.concurrency,
    workers,
    durationS: round(windowS),
    requests: expected,
    perSecond: round(expected / windowS),
    latency: summarise(latencies),
    statuses,
    failures,
    ...(firstError === undefined ? {} : { firstError }),
    receivedMBPerSecond: round(bytes / windowS / (1 << 20)),
    ...(spec.serverPid === undefined
      ? {}
      : { serverCpuPercent: round((serverCpu / cpuWindowS) * 100), serverCpuSeconds: serverCpu, cpuWindowRequests: latencies.length }),
    generatorCpuPercent: round((generatorCpu / cpuWindowS) * 100),
    otherCpuPercent: round((Math.max(0, machineCpu - serverCpu - generatorCpu) / cpuWindowS) * 100),
    windowUs: { from: epochToMonotonicUs(measureStart), to: epochToMonotonicUs(lastCompletion) },
  };
}
