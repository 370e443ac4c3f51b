/**
 * orch-apiserver watch-cache benchmark (`npm run bench -- --suite watch`, about 4 minutes):
 * watch fan-out latency and loss, large lists, and the memory of the cache. Writes
 * bench/results/<date>-watch.{json,md}. Everything runs on this 2-core machine: the server is a
 * child process (CLI, sqlite backend); watchers run in child processes of the bench (lib/watch-worker.ts).
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { h1Client, h2Client, type Client, type Target } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import { analyseHeapSnapshot, type HeapSummary } from "./lib/heap-snapshot.js";
import { loadConfigMaps, rssGrowthRound, timeLists, type ListTiming, type LoadResult, type RssGrowthRound } from "./lib/lists.js";
import { configMapBody, namespaceBody } from "./lib/objects.js";
import { makeTempDir, processMemory, spawnNode } from "./lib/processes.js";
import { analyseProfile, type ProfileSummary } from "./lib/profile.js";
import { QuietGate, QUIET_THRESHOLD_PERCENT } from "./lib/quiet.js";
import { headlineRow, type HeadlineRow, type RatioRow, type ResultsHeader } from "./lib/report.js";
import { adminCredentials, REPO_ROOT, startServerChild, type ServerChild } from "./lib/server.js";
import { median, round } from "./lib/stats.js";
import {
  DRAIN_STALL_MS,
  DRAIN_TIMEOUT_MS,
  PacedWriter,
  runFanoutPhase,
  WatchFleet,
  type FanoutPhase,
  type FleetOpening,
  type FleetSpec,
} from "./lib/watch-fanout.js";
import { renderWatchMarkdown, watchPhaseTable, listTable } from "./lib/watch-report.js";
import { monotonicMs, type WatchProtocol } from "./lib/watch-types.js";

export interface WatchSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly profile: boolean;
  readonly profileDir?: string;
  readonly quietWaitMs: number;
  /** Watcher processes. */
  readonly watchWorkers: number;
  readonly h2: boolean;
  readonly heapSnapshot: boolean;
}

export interface Settings extends WatchSuiteOptions {
  readonly watcherCounts: readonly number[];
  readonly rates: readonly number[];
  readonly phaseMs: number;
  readonly h2Watchers: number;
  /** HTTP/2 connections per watcher process in the h2 configuration. */
  readonly h2SessionsPerWorker: number;
  readonly openConcurrency: number;
  readonly poolSize: number;
  readonly bodyBytes: number;
  readonly listSizes: readonly [number, number];
  readonly listRuns: readonly [number, number];
  /** Runs of the paged lists of the large set (each is hundreds of pages). */
  readonly largePagedRuns: number;
  readonly pageLimit: number;
  readonly loadConcurrency: number;
  readonly rssRounds: number;
  readonly rssConcurrent: number;
  readonly rssIntervalMs: number;
  readonly steadyWaitMs: number;
  readonly profileMs: number;
  /** Length of each rate of the bare fan-out limit. */
  readonly limitMs: number;
}

export const TARGETS = {
  watchP99Ms100At200: 20,
  watchP99Ms1000At20: 20,
  watchP99Ms1000At200: 100,
  consistentList10kMs: 130,
  listRssGrowthMB: 32,
} as const;

const KUBE = {
  watchP99Ms100At200: 988,
  lostPercent1000At200: 89,
  consistentList10kMs: 445,
  rv0List10kMs: 131,
  listRssGrowthMB: 140,
} as const;

const NAMESPACE = "bench";
const LIST_NAMESPACE = "bench-list";

const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const collection = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;
const thousands = (value: number): string => value.toLocaleString("en-US");

export function settingsFor(options: WatchSuiteOptions): Settings {
  const quick = options.quick;
  return {
    ...options,
    watcherCounts: quick ? [1, 20, 100] : [1, 100, 1000],
    rates: [20, 200],
    phaseMs: quick ? 2000 : 10_000,
    h2Watchers: quick ? 100 : 1000,
    h2SessionsPerWorker: 1,
    openConcurrency: 16,
    poolSize: 64,
    bodyBytes: 1024,
    listSizes: quick ? [1000, 5000] : [10_000, 100_000],
    listRuns: quick ? [2, 2] : [5, 3],
    largePagedRuns: quick ? 1 : 2,
    pageLimit: 500,
    loadConcurrency: 32,
    rssRounds: quick ? 2 : 3,
    rssConcurrent: 5,
    rssIntervalMs: 10,
    steadyWaitMs: quick ? 1000 : 2000,
    profileMs: quick ? 2000 : 4000,
    limitMs: quick ? 2000 : 4000,
  };
}

async function must(client: Client, method: string, path: string, body: string | undefined, statuses: readonly number[]): Promise<Buffer> {
  const reply = await client.request(method, path, body, true);
  if (!statuses.includes(reply.status)) throw new Error(`${method} ${path}: HTTP ${reply.status} ${String(reply.body ?? "").slice(0, 300)}`);
  return reply.body ?? Buffer.alloc(0);
}

async function listRevision(client: Client, namespace: string): Promise<string> {
  const body = await must(client, "GET", `${collection(namespace)}?limit=1`, undefined, [200]);
  const match = /"resourceVersion":"(\d+)"/.exec(body.toString());
  if (match?.[1] === undefined) throw new Error(`no resourceVersion in the list of ${namespace}`);
  return match[1];
}

// ---------------------------------------------------------------- fan-out

export interface FleetRecord extends FleetOpening {
  readonly label: string;
  readonly protocol: WatchProtocol;
  readonly watchers: number;
}

interface FanoutConfig {
  readonly protocol: WatchProtocol;
  readonly watchers: number;
  readonly rates: readonly number[];
  /** Prefix of the labels (e.g. which bare server). */
  readonly prefix?: string;
}

function fleetLabel(config: FanoutConfig, settings: Settings): string {
  const workers = Math.min(settings.watchWorkers, config.watchers);
  return (
    (config.prefix ?? "") +
    (config.protocol === "h1"
      ? `${thousands(config.watchers)} watcher${config.watchers === 1 ? "" : "s"}, 1 TLS connection each`
      : `${thousands(config.watchers)} watchers as HTTP/2 streams over ${workers * settings.h2SessionsPerWorker} connections`)
  );
}

function describeFanout(phase: FanoutPhase): string {
  const lost = phase.events.lost > 0 ? `, LOST ${phase.events.lost} (${phase.events.lostPercent} %)` : ", 0 lost";
  const closed = phase.closedByServer > 0 ? `, ${phase.closedByServer} CLOSED by the server (${phase.firstServerClose ?? "?"})` : "";
  const failed = phase.writes.failed > 0 ? `, ${phase.writes.failed} writes FAILED (${phase.writes.firstError ?? "?"})` : "";
  return (
    `  ${phase.label.padEnd(36)} writes ${phase.writes.perSecond}/s (p99 ${phase.writes.latency.p99Ms} ms)  delay p50 ${phase.delay.p50Ms} ms p99 ${phase.delay.p99Ms} ms max ${phase.delay.maxMs} ms (from write sent: p99 ${phase.delayFromIssue.p99Ms} ms)` +
    `  events ${thousands(phase.events.received)}/${thousands(phase.events.expected)}${lost}${closed}${failed}  drain ${phase.drainMs} ms  ${phase.events.perRead} ev/read` +
    `  server CPU ${phase.serverCpuPercent} %  client CPU ${phase.clientCpuPercent} % (busiest client thread ${phase.busiestClientThreadPercent} %)  other ${phase.otherCpuPercent} %`
  );
}

export interface FanoutRun {
  readonly phases: FanoutPhase[];
  readonly fleets: FleetRecord[];
}

interface FleetHooks {
  /** After the watches of a phase are open, before its first write. */
  readonly opened?: (config: FanoutConfig, rateIndex: number) => Promise<void>;
  /** After the phase, its watches still open. */
  readonly afterRate?: (config: FanoutConfig, rateIndex: number, phase: FanoutPhase) => Promise<void>;
}

/**
 * Every (configuration, rate) phase on freshly opened watches, from the resourceVersion of a list
 * taken just before, on one server: a phase does not inherit what earlier phases left in the
 * server (a repeated phase included).
 */
async function runFanout(
  server: { readonly pid: number },
  target: Target,
  writer: PacedWriter,
  setup: Client,
  configs: readonly FanoutConfig[],
  settings: Settings,
  gate: QuietGate,
  phaseMs: number,
  hooks: FleetHooks = {},
): Promise<FanoutRun> {
  const phases: FanoutPhase[] = [];
  const fleets: FleetRecord[] = [];
  for (const config of configs) {
    const label = fleetLabel(config, settings);
    for (const [rateIndex, rate] of config.rates.entries()) {
      const phaseLabel = `${config.prefix ?? ""}${thousands(config.watchers)} @ ${rate} writes/s (${config.protocol})`;
      const result = await gate.measure(
        phaseLabel,
        [server.pid],
        async () => {
          const revision = await listRevision(setup, NAMESPACE);
          const spec: FleetSpec = {
            protocol: config.protocol,
            watchers: config.watchers,
            workers: settings.watchWorkers,
            sessionsPerWorker: settings.h2SessionsPerWorker,
            target,
            path: `${collection(NAMESPACE)}?watch=1&resourceVersion=${revision}`,
            openConcurrency: settings.openConcurrency,
          };
          const fleet = await WatchFleet.open(spec);
          try {
            const opening = fleet.opening;
            fleets.push({ ...opening, label: `${label} (${rate} writes/s)`, protocol: config.protocol, watchers: config.watchers });
            log(
              `  ${label}: ${opening.opened} open in ${opening.openS} s over ${opening.connections} connection(s), ${opening.workers} watcher process(es)${opening.failed > 0 ? `, ${opening.failed} FAILED (${opening.firstError ?? "?"})` : ""}`,
            );
            await hooks.opened?.(config, rateIndex);
            const run = await runFanoutPhase({
              label: phaseLabel,
              fleet,
              spec,
              writer,
              rate,
              durationMs: phaseMs,
              serverPid: server.pid,
              expectedBefore: 0,
              closedBefore: 0,
              tag: `w${config.protocol}${config.watchers}-${rate}-${Date.now().toString(36)}`,
            });
            await hooks.afterRate?.(config, rateIndex, run.phase);
            return run.phase;
          } finally {
            await fleet.close();
            await sleep(300);
          }
        },
        (phase) => phase.otherCpuPercent,
        phaseMs,
        3,
      );
      phases.push(result);
      log(describeFanout(result));
    }
  }
  return { phases, fleets };
}

/** What the server's heap retains while watches stay open (heap snapshots, so after a full GC). */
export interface WatchHeapCheck {
  readonly watchers: number;
  readonly phases: readonly string[];
  readonly writes: number;
  readonly eventsDelivered: number;
  /** Reads at the watchers (≈ the batches the server wrote). */
  readonly reads: number;
  readonly before: { readonly liveHeapMiB: number; readonly promises: number; readonly rssMB: number };
  readonly after: { readonly liveHeapMiB: number; readonly promises: number; readonly rssMB: number };
  readonly retainedBytesPerEvent: number;
  readonly retainedPromisesPerEvent: number;
  readonly topAfter: readonly { readonly name: string; readonly count: number; readonly MiB: number }[];
}

export interface FanoutResults extends FanoutRun {
  readonly pkiDir: string;
  readonly serverRssAfterMB: number;
  readonly heapCheck?: WatchHeapCheck;
}

export async function measureFanout(root: string, settings: Settings, gate: QuietGate): Promise<FanoutResults> {
  const dataDir = join(root, "watch");
  const snapshotDir = join(root, "watch-heap");
  mkdirSync(snapshotDir, { recursive: true });
  // --heapsnapshot-signal costs nothing until the signal: the heap is checked around one fleet.
  const server = await startServerChild({ dataDir, ...(settings.heapSnapshot ? { nodeArgs: ["--heapsnapshot-signal=SIGUSR2"], cwd: snapshotDir } : {}) });
  try {
    const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
    const setup = h1Client(target, 4);
    const writerClient = await h2Client(target);
    const pool = await preparePool(setup, settings);
    const writer = new PacedWriter(writerClient, NAMESPACE, pool, settings.bodyBytes);
    log(
      `watch fan-out: server pid ${server.pid}, ${settings.watchWorkers} watcher processes, writer: one HTTP/2 connection in the bench process, ${settings.phaseMs / 1000} s per rate`,
    );
    // A short warm-up of the write and fan-out paths (JIT), not recorded.
    const warm = await WatchFleet.open({
      protocol: "h1",
      watchers: 10,
      workers: 1,
      sessionsPerWorker: 1,
      target,
      path: `${collection(NAMESPACE)}?watch=1&resourceVersion=${await listRevision(setup, NAMESPACE)}`,
      openConcurrency: 10,
    });
    await writer.run("warm", 200, 1000);
    await warm.close();
    const configs: FanoutConfig[] = settings.watcherCounts.map((watchers) => ({ protocol: "h1", watchers, rates: settings.rates }));
    if (settings.h2) configs.push({ protocol: "h2", watchers: settings.h2Watchers, rates: settings.rates });
    const checked = settings.watcherCounts[settings.watcherCounts.length - 2] ?? 100;
    let before: WatchHeapCheck["before"] | undefined;
    let heapCheck: WatchHeapCheck | undefined;
    const snapshot = async (): Promise<{ summary: HeapSummary; rssMB: number }> => {
      const file = await takeHeapSnapshot(server, snapshotDir);
      const rssMB = round(processMemory(server.pid).rssMB);
      const summary = analyseHeapSnapshot(file);
      rmSync(file, { force: true });
      return { summary, rssMB };
    };
    const hooks: FleetHooks = !settings.heapSnapshot
      ? {}
      : {
          opened: async (config, rateIndex) => {
            if (config.protocol !== "h1" || config.watchers !== checked || rateIndex !== 0) return;
            const { summary, rssMB } = await snapshot();
            before = { liveHeapMiB: summary.liveHeapMiB, promises: summary.promises, rssMB };
          },
          // After the low rate: the snapshot of a heap that grew at the high rate would be large
          // and slow to write and read; per event, what is retained is the same.
          afterRate: async (config, rateIndex, phase) => {
            if (config.protocol !== "h1" || config.watchers !== checked || before === undefined || rateIndex !== 0) return;
            const phases = [phase];
            const started = monotonicMs();
            const { summary, rssMB } = await snapshot();
            const events = phases.reduce((sum, phase) => sum + phase.events.received, 0);
            const reads = phases.reduce((sum, phase) => sum + (phase.events.perRead > 0 ? phase.events.received / phase.events.perRead : 0), 0);
            heapCheck = {
              watchers: config.watchers,
              phases: phases.map((phase) => phase.label),
              writes: phases.reduce((sum, phase) => sum + phase.writes.acked, 0),
              eventsDelivered: events,
              reads: Math.round(reads),
              before,
              after: { liveHeapMiB: summary.liveHeapMiB, promises: summary.promises, rssMB },
              retainedBytesPerEvent: round(((summary.liveHeapMiB - before.liveHeapMiB) * (1 << 20)) / Math.max(1, events)),
              retainedPromisesPerEvent: round((summary.promises - before.promises) / Math.max(1, events)),
              topAfter: summary.byConstructor.slice(0, 8).map((row) => ({ name: row.name, count: row.count, MiB: row.MiB })),
            };
            log(
              `  heap with the ${config.watchers} watches still open, after ${thousands(events)} events: live ${before.liveHeapMiB} → ${summary.liveHeapMiB} MiB, Promises ${thousands(before.promises)} → ${thousands(summary.promises)} (${heapCheck.retainedBytesPerEvent} B and ${heapCheck.retainedPromisesPerEvent} Promises retained per event; snapshot + analysis ${round((monotonicMs() - started) / 1000)} s)`,
            );
          },
        };
    const run = await runFanout(server, target, writer, setup, configs, settings, gate, settings.phaseMs, hooks);
    const serverRssAfterMB = round(processMemory(server.pid).rssMB);
    setup.close();
    writerClient.close();
    return { ...run, pkiDir: join(dataDir, "pki"), serverRssAfterMB, ...(heapCheck === undefined ? {} : { heapCheck }) };
  } finally {
    await server.stop();
  }
}

async function preparePool(setup: Client, settings: Settings): Promise<string[]> {
  await must(setup, "POST", "/api/v1/namespaces", namespaceBody(NAMESPACE), [201, 409]);
  const pool = Array.from({ length: settings.poolSize }, (_, index) => `pool-${String(index).padStart(3, "0")}`);
  for (const name of pool) await must(setup, "POST", collection(NAMESPACE), configMapBody(NAMESPACE, name, settings.bodyBytes), [201, 409]);
  return pool;
}

// ---------------------------------------------------------------- limits

export type BareMode = "string" | "batch";

/**
 * The same fan-out against bare-watch-server.js (no storage, no cache, the line written to every
 * watch in the write's tick): `string` = one string write per event per watch, as the server
 * did before it coalesced fan-out; `batch` = the lines of one event-loop turn as one shared Buffer
 * per watch, as the server does.
 */
export async function measureFanoutLimit(
  _root: string,
  pkiDir: string,
  mode: BareMode,
  settings: Settings,
  gate: QuietGate,
  batchRates: "highest" | "all" = "highest",
): Promise<FanoutRun> {
  const script = new URL("./bare-watch-server.js", import.meta.url).pathname;
  const child = spawnNode([script, join(pkiDir, "serving.crt"), join(pkiDir, "serving.key"), join(pkiDir, "ca.crt"), mode]);
  try {
    const deadline = monotonicMs() + 10_000;
    let port: number | undefined;
    while (port === undefined) {
      const match = /listening (\d+)/.exec(child.output());
      if (match !== null) port = Number(match[1]);
      else if (monotonicMs() > deadline || child.child.exitCode !== null) throw new Error(`bare watch server did not start: ${child.output()}`);
      else await sleep(5);
    }
    const target: Target = { host: "127.0.0.1", port, credentials: adminCredentials(join(pkiDir, "..")) };
    const setup = h1Client(target, 4);
    const writerClient = await h2Client(target);
    const writer = new PacedWriter(writerClient, NAMESPACE, await preparePool(setup, settings), settings.bodyBytes);
    const watchers = settings.watcherCounts[settings.watcherCounts.length - 1] ?? 1000;
    const prefix = mode === "string" ? "bare, string per event: " : "bare, batched Buffer: ";
    // The batched limit at the high rate only, unless asked: at the low one there is nothing to batch, so it
    // equals the per-event modes — the watch-tail suite still asks for it, as its low-rate limit.
    const rates = mode === "batch" && batchRates === "highest" ? settings.rates.slice(-1) : settings.rates;
    const run = await runFanout(child, target, writer, setup, [{ protocol: "h1", watchers, rates, prefix }], settings, gate, settings.limitMs);
    setup.close();
    writerClient.close();
    return run;
  } finally {
    await child.stop();
  }
}

// ---------------------------------------------------------------- profiles

export interface WindowProfile {
  readonly what: string;
  readonly profile: ProfileSummary;
  readonly file?: string;
}

function keepProfile(dir: string, name: string, settings: Settings): { path: string; kept?: string } {
  const file = readdirSync(dir).find((entry) => entry.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error(`no .cpuprofile written in ${dir}`);
  const path = join(dir, file);
  if (settings.profileDir === undefined) return { path };
  mkdirSync(settings.profileDir, { recursive: true });
  const kept = join(settings.profileDir, `${name}.cpuprofile`);
  copyFileSync(path, kept);
  return { path, kept };
}

/** The 1,000 watchers @ 200 writes/s phase again, on a server under node --cpu-prof. */
export async function profileFanout(
  root: string,
  pkiDir: string,
  protocol: WatchProtocol,
  settings: Settings,
  gate: QuietGate,
): Promise<{ profile: WindowProfile; phase: FanoutPhase }> {
  const dataDir = join(root, `profile-watch-${protocol}`);
  const cpuDir = join(root, `profile-watch-${protocol}-cpu`);
  mkdirSync(cpuDir, { recursive: true });
  cpSync(pkiDir, join(dataDir, "pki"), { recursive: true });
  const server = await startServerChild({ dataDir, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", cpuDir] });
  let phase: FanoutPhase | undefined;
  try {
    const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
    const setup = h1Client(target, 4);
    const writerClient = await h2Client(target);
    const writer = new PacedWriter(writerClient, NAMESPACE, await preparePool(setup, settings), settings.bodyBytes);
    const watchers = protocol === "h2" ? settings.h2Watchers : (settings.watcherCounts[settings.watcherCounts.length - 1] ?? 1000);
    const rate = settings.rates[settings.rates.length - 1] ?? 200;
    const run = await runFanout(server, target, writer, setup, [{ protocol, watchers, rates: [rate] }], settings, gate, settings.profileMs);
    phase = run.phases[0];
    setup.close();
    writerClient.close();
  } finally {
    await server.stop();
  }
  if (phase === undefined) throw new Error("the profiled fan-out phase did not run");
  const { path, kept } = keepProfile(cpuDir, `watch-fanout-${protocol}`, settings);
  const profile = analyseProfile(path, REPO_ROOT, { fromUs: phase.windowUs.from, toUs: phase.windowUs.to });
  log(
    `  top src/ self time: ${profile.topSrcSelf
      .slice(0, 6)
      .map((entry) => `${entry.function} ${entry.selfPercent}%`)
      .join(", ")}`,
  );
  return {
    profile: {
      what: `${phase.label}, ${settings.profileMs / 1000} s of writes, server under --cpu-prof`,
      profile,
      ...(kept === undefined ? {} : { file: kept }),
    },
    phase,
  };
}

// ---------------------------------------------------------------- lists and memory

interface SteadyMemory {
  readonly objects: number;
  /** Spawn → /readyz 200 with this many objects to load into the cache. */
  readyMs: number;
  readonly rssMB: number;
  /** VmHWM: the peak since start, i.e. while the cache was filled. */
  readonly hwmMB: number;
}

interface ListResults {
  readonly loads: LoadResult[];
  readonly timings: ListTiming[];
  readonly rssGrowth: RssGrowthRound[];
  readonly rssGrowthListMiB: number;
  readonly steady: SteadyMemory[];
  readonly profile?: WindowProfile;
  readonly heap?: HeapSummary;
  readonly heapRssMB?: number;
}

async function steadyMemory(
  dataDir: string,
  objects: number,
  settings: Settings,
  extra: { nodeArgs?: string[]; cwd?: string } = {},
): Promise<{ server: ServerChild; memory: SteadyMemory }> {
  const server = await startServerChild({
    dataDir,
    ...(extra.nodeArgs === undefined ? {} : { nodeArgs: extra.nodeArgs }),
    ...(extra.cwd === undefined ? {} : { cwd: extra.cwd }),
  });
  await sleep(settings.steadyWaitMs);
  const memory = processMemory(server.pid);
  const steady = { objects, readyMs: round(server.readyMs), rssMB: round(memory.rssMB), hwmMB: round(memory.hwmMB) };
  log(`  steady with ${thousands(objects)} objects: ready in ${steady.readyMs} ms, RSS ${steady.rssMB} MiB (peak while loading ${steady.hwmMB} MiB)`);
  return { server, memory: steady };
}

async function listSuite(
  server: ServerChild,
  size: number,
  runs: number,
  pagedRuns: number,
  warmups: number,
  settings: Settings,
  protocols: readonly ("h1" | "h2")[],
): Promise<ListTiming[]> {
  const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) };
  const timings: ListTiming[] = [];
  const path = collection(LIST_NAMESPACE);
  for (const protocol of protocols) {
    const client = protocol === "h1" ? h1Client(target, 1) : await h2Client(target);
    try {
      const variants: ["consistent" | "rv0", number][] =
        protocol === "h1"
          ? [
              ["consistent", 0],
              ["rv0", 0],
              ["consistent", settings.pageLimit],
              ["rv0", settings.pageLimit],
            ]
          : [["consistent", 0]];
      for (const [variant, limit] of variants) {
        // The namespace also holds its root-CA ConfigMap (as in bench/scale.ts).
        const timing = await timeLists(client, protocol, path, variant, limit, limit > 0 ? pagedRuns : runs, warmups, size + 1);
        timings.push(timing);
        log(
          `  list ${thousands(size)} ${variant === "rv0" ? "rv=0" : "consistent"}${limit > 0 ? ` paged (limit=${limit}, ${timing.pages} pages)` : " whole"} (${protocol}): median ${timing.medianMs} ms (runs ${timing.runsMs.join(", ")}), ${timing.bodyMiB} MiB`,
        );
      }
    } finally {
      client.close();
    }
  }
  return timings;
}

async function measureLists(root: string, settings: Settings, gate: QuietGate): Promise<ListResults> {
  const [small, large] = settings.listSizes;
  const [smallRuns, largeRuns] = settings.listRuns;
  const dataDir = join(root, "lists");
  const loads: LoadResult[] = [];
  const timings: ListTiming[] = [];
  const steady: SteadyMemory[] = [];
  const rssGrowth: RssGrowthRound[] = [];
  let rssGrowthListMiB = 0;
  log(
    `lists: ${thousands(small)} then ${thousands(large)} ConfigMaps of ~${settings.bodyBytes} bytes in ${LIST_NAMESPACE}, loaded over HTTP/2 at c=${settings.loadConcurrency}`,
  );

  // Empty server: the baseline of the steady-memory figures.
  {
    const { server, memory } = await steadyMemory(dataDir, 0, settings);
    steady.push(memory);
    try {
      const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
      const loader = await h2Client(target);
      await must(loader, "POST", "/api/v1/namespaces", namespaceBody(LIST_NAMESPACE), [201, 409]);
      await gate.wait([server.pid]);
      const load = await loadConfigMaps(loader, LIST_NAMESPACE, 0, small, settings.loadConcurrency, settings.bodyBytes);
      loads.push(load);
      log(`  loaded ${thousands(load.created)} at ${load.perSecond}/s`);
      loader.close();
      await gate.wait([server.pid]);
      timings.push(...(await listSuite(server, small, smallRuns, smallRuns, 1, settings, settings.h2 ? ["h1", "h2"] : ["h1"])));
      rssGrowthListMiB = timings.find((timing) => timing.variant === "consistent" && !timing.paged)?.bodyMiB ?? 0;
    } finally {
      await server.stop();
    }
  }

  // Restart with the small set: steady memory, then RSS during concurrent whole lists, the first
  // round from that steady state (no list served since the start).
  {
    const { server, memory } = await steadyMemory(dataDir, small, settings);
    steady.push(memory);
    try {
      const client = h1Client({ host: server.host, port: server.port, credentials: adminCredentials(dataDir) }, settings.rssConcurrent);
      for (let index = 0; index < settings.rssRounds; index++) {
        await gate.wait([server.pid]);
        await sleep(500);
        const round = await rssGrowthRound(server.pid, client, collection(LIST_NAMESPACE), settings.rssConcurrent, settings.rssIntervalMs);
        rssGrowth.push(round);
        log(
          `  RSS during ${settings.rssConcurrent} concurrent whole ${thousands(small)} lists, round ${index + 1}: ${round.baselineMB} → peak ${round.hwmPeakMB ?? round.sampledPeakMB} MiB (sampled ${round.sampledPeakMB}, ${round.samples} samples): +${round.growthMB} MiB in ${round.listsMs} ms`,
        );
      }
      client.close();
    } finally {
      await server.stop();
    }
  }

  // The consistent small list under the profiler.
  let profile: WindowProfile | undefined;
  if (settings.profile) {
    const cpuDir = join(root, "profile-list-cpu");
    mkdirSync(cpuDir, { recursive: true });
    const server = await startServerChild({ dataDir, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", cpuDir] });
    let window = { from: 0, to: 0 };
    let lists = 0;
    try {
      const client = h1Client({ host: server.host, port: server.port, credentials: adminCredentials(dataDir) }, 1);
      await timeLists(client, "h1", collection(LIST_NAMESPACE), "consistent", 0, 1, 1, small + 1);
      await gate.wait([server.pid]);
      const started = monotonicMs();
      while (monotonicMs() - started < settings.profileMs / 2) {
        await timeLists(client, "h1", collection(LIST_NAMESPACE), "consistent", 0, 1, 0, small + 1);
        lists++;
      }
      window = { from: Math.round(started * 1000), to: Math.round(monotonicMs() * 1000) };
      client.close();
    } finally {
      await server.stop();
    }
    const { path, kept } = keepProfile(cpuDir, "list-10k", settings);
    const summary = analyseProfile(path, REPO_ROOT, { fromUs: window.from, toUs: window.to });
    profile = {
      what: `${lists} consistent whole lists of ${thousands(small)} one after another (h1), server under --cpu-prof`,
      profile: summary,
      ...(kept === undefined ? {} : { file: kept }),
    };
    log(
      `  profiled ${lists} consistent ${thousands(small)} lists; top src/ self time: ${summary.topSrcSelf
        .slice(0, 6)
        .map((entry) => `${entry.function} ${entry.selfPercent}%`)
        .join(", ")}`,
    );
  }

  // The large set: load the rest, time the lists.
  {
    const server = await startServerChild({ dataDir });
    try {
      const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
      const loader = await h2Client(target);
      await gate.wait([server.pid]);
      const load = await loadConfigMaps(loader, LIST_NAMESPACE, small, large, settings.loadConcurrency, settings.bodyBytes);
      loads.push(load);
      log(`  loaded ${thousands(load.created)} more at ${load.perSecond}/s`);
      loader.close();
      await gate.wait([server.pid]);
      timings.push(...(await listSuite(server, large, largeRuns, settings.largePagedRuns, 0, settings, settings.h2 ? ["h1", "h2"] : ["h1"])));
    } finally {
      await server.stop();
    }
  }

  // Restart with the large set: steady memory, then a heap snapshot (a full GC first) of it.
  let heap: HeapSummary | undefined;
  let heapRssMB: number | undefined;
  {
    const snapshotDir = join(root, "heap");
    mkdirSync(snapshotDir, { recursive: true });
    const { server, memory } = await steadyMemory(
      dataDir,
      large,
      settings,
      settings.heapSnapshot ? { nodeArgs: ["--heapsnapshot-signal=SIGUSR2"], cwd: snapshotDir } : {},
    );
    steady.push(memory);
    try {
      if (settings.heapSnapshot) {
        const file = await takeHeapSnapshot(server, snapshotDir);
        heapRssMB = round(processMemory(server.pid).rssMB);
        await server.stop();
        const started = monotonicMs();
        heap = analyseHeapSnapshot(file);
        if (settings.profileDir !== undefined) {
          mkdirSync(settings.profileDir, { recursive: true });
          copyFileSync(file, join(settings.profileDir, `cache-${large}.heapsnapshot`));
        }
        log(
          `  heap snapshot with ${thousands(large)} objects: live heap ${heap.liveHeapMiB} MiB, ${thousands(heap.cachedObjects)} cached objects at ${heap.cachedObjectBytesPerObject} B each + ${heap.containerBytesPerObject} B of containers (analysed in ${round((monotonicMs() - started) / 1000)} s)`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  return {
    loads,
    timings,
    rssGrowth,
    rssGrowthListMiB,
    steady,
    ...(profile === undefined ? {} : { profile }),
    ...(heap === undefined ? {} : { heap }),
    ...(heapRssMB === undefined ? {} : { heapRssMB }),
  };
}

/** SIGUSR2 → node writes Heap.*.heapsnapshot into its working directory; waits until the new one is complete. */
async function takeHeapSnapshot(server: { readonly pid: number }, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(server.pid, "SIGUSR2");
  const deadline = monotonicMs() + 120_000;
  let lastSize = -1;
  let stableSince = monotonicMs();
  for (;;) {
    if (monotonicMs() > deadline) throw new Error("no heap snapshot within 120 s");
    await sleep(250);
    const file = readdirSync(dir).find((entry) => entry.endsWith(".heapsnapshot") && !before.has(entry));
    if (file === undefined) continue;
    const path = join(dir, file);
    const size = statSync(path).size;
    if (size !== lastSize) {
      lastSize = size;
      stableSince = monotonicMs();
      continue;
    }
    // The writer streams the JSON out; done when the file has stopped growing.
    if (monotonicMs() - stableSince > 750 && size > 0) return path;
  }
}

// ---------------------------------------------------------------- assembly

export interface WatchResults extends ResultsHeader {
  readonly name: "watch";
  readonly fleets: readonly FleetRecord[];
  readonly fanout: readonly FanoutPhase[];
  /** The same fan-out against bare-watch-server.js. */
  readonly fanoutLimits: readonly FanoutPhase[];
  readonly watchHeap?: WatchHeapCheck;
  readonly lists: ListResults;
  readonly profiles: Readonly<Record<string, WindowProfile>>;
  readonly profiledFanoutPhases: readonly FanoutPhase[];
  readonly notes: readonly string[];
  /** Wall time per part of the suite, waiting for quiet included (the lists part includes the list profile and the heap snapshot). */
  readonly sectionSeconds: Readonly<Record<string, number>>;
  readonly totalBenchSeconds: number;
}

export function findPhase(phases: readonly FanoutPhase[], watchers: number, rate: number, protocol: WatchProtocol): FanoutPhase | undefined {
  return phases.find(
    (phase) => phase.watchers >= watchers * 0.99 && phase.watchers <= watchers && phase.targetWritesPerSecond === rate && phase.protocol === protocol,
  );
}

export async function runWatchSuite(options: WatchSuiteOptions): Promise<void> {
  const began = performance.now();
  const settings = settingsFor(options);
  const root = makeTempDir("orch-bench-watch-");
  log(`orch-apiserver watch benchmark (${settings.quick ? "quick" : "full"}), scratch dir ${root}`);
  const gate = new QuietGate(settings.quietWaitMs);
  const backgroundAtStart = await gate.wait();
  log(`other processes' CPU before the run: ${backgroundAtStart} % of a core`);

  const sectionSeconds: Record<string, number> = {};
  let sectionStart = performance.now();
  const section = (name: string): void => {
    sectionSeconds[name] = round((performance.now() - sectionStart) / 1000);
    log(`  (${name}: ${sectionSeconds[name]} s)`);
    sectionStart = performance.now();
  };
  const fanout = await measureFanout(root, settings, gate);
  section("fan-out");
  log("limits: the same fan-out against a bare node server (bare-watch-server.ts)");
  const limitRuns = [
    await measureFanoutLimit(root, fanout.pkiDir, "string", settings, gate),
    await measureFanoutLimit(root, fanout.pkiDir, "batch", settings, gate),
  ];
  const fanoutLimits = limitRuns.flatMap((run) => run.phases);
  section("fan-out limits");
  const lists = await measureLists(root, settings, gate);
  section("lists and memory");
  const profiles: Record<string, WindowProfile> = {};
  const profiledFanoutPhases: FanoutPhase[] = [];
  if (settings.profile) {
    for (const protocol of settings.h2 ? (["h1", "h2"] as const) : (["h1"] as const)) {
      log(`profile: the largest fan-out phase (${protocol}) on a server under node --cpu-prof`);
      const profiled = await profileFanout(root, fanout.pkiDir, protocol, settings, gate);
      profiles[`watch fan-out (${protocol === "h1" ? "TLS connection per watch" : "HTTP/2 streams"})`] = profiled.profile;
      profiledFanoutPhases.push(profiled.phase);
    }
    if (lists.profile !== undefined) profiles["consistent list"] = lists.profile;
    section("fan-out profiles");
  }

  const [small, large] = settings.listSizes;
  const bigWatchers = settings.watcherCounts[settings.watcherCounts.length - 1] ?? 1000;
  const midWatchers = settings.watcherCounts[settings.watcherCounts.length - 2] ?? 100;
  const [lowRate, highRate] = [settings.rates[0] ?? 20, settings.rates[settings.rates.length - 1] ?? 200];
  const headline: HeadlineRow[] = [];
  const full = !settings.quick;
  const p99Row = (watchers: number, rate: number, protocol: WatchProtocol, target: number | undefined, kube?: number): void => {
    const phase = findPhase(fanout.phases, watchers, rate, protocol);
    if (phase === undefined) return;
    const how = `${thousands(watchers)} watchers @ ${rate} writes/s (${protocol === "h1" ? "1 TLS conn each" : "h2 streams"})`;
    const goal = target === undefined ? undefined : { value: target, direction: "max" as const };
    headline.push(headlineRow(`Watch delay p99 from the write's ack, ${how}`, phase.delay.p99Ms, "ms", goal, kube));
    headline.push(headlineRow(`Watch delay p99 from the write being sent, ${how}`, phase.delayFromIssue.p99Ms, "ms", goal));
    headline.push(
      headlineRow(
        `Writes/s achieved, ${how} (held = ≥ 97 % of ${rate})`,
        phase.writes.perSecond,
        "writes/s",
        full ? { value: round(rate * 0.97), direction: "min" } : undefined,
      ),
    );
    headline.push(headlineRow(`Write p99, ${how}`, phase.writes.latency.p99Ms, "ms"));
  };
  const lostRow = (watchers: number, rate: number, protocol: WatchProtocol, kube?: number): void => {
    const phase = findPhase(fanout.phases, watchers, rate, protocol);
    if (phase === undefined) return;
    headline.push(
      headlineRow(`Events lost, ${thousands(watchers)} @ ${rate} writes/s (${protocol})`, phase.events.lostPercent, "%", { value: 0, direction: "max" }, kube),
    );
    headline.push(
      headlineRow(`Watches closed by the server, ${thousands(watchers)} @ ${rate} writes/s (${protocol})`, phase.closedByServer, "watches", {
        value: 0,
        direction: "max",
      }),
    );
  };
  p99Row(midWatchers, highRate, "h1", full ? TARGETS.watchP99Ms100At200 : undefined, full ? KUBE.watchP99Ms100At200 : undefined);
  p99Row(bigWatchers, lowRate, "h1", full ? TARGETS.watchP99Ms1000At20 : undefined);
  p99Row(bigWatchers, highRate, "h1", full ? TARGETS.watchP99Ms1000At200 : undefined);
  lostRow(bigWatchers, highRate, "h1", full ? KUBE.lostPercent1000At200 : undefined);
  p99Row(settings.h2Watchers, lowRate, "h2", full ? TARGETS.watchP99Ms1000At20 : undefined);
  p99Row(settings.h2Watchers, highRate, "h2", full ? TARGETS.watchP99Ms1000At200 : undefined);
  lostRow(settings.h2Watchers, highRate, "h2", full ? KUBE.lostPercent1000At200 : undefined);
  if (fanout.heapCheck !== undefined) {
    const check = fanout.heapCheck;
    headline.push(
      headlineRow(
        `Live heap retained with ${check.watchers} watches open, per event delivered (${thousands(check.eventsDelivered)} events)`,
        check.retainedBytesPerEvent,
        "bytes",
      ),
    );
    headline.push(headlineRow(`Promises retained with ${check.watchers} watches open, per event delivered`, check.retainedPromisesPerEvent, "Promises"));
  }
  const totalLost = fanout.phases.reduce((sum, phase) => sum + phase.events.lost, 0);
  const totalClosed = fanout.phases.reduce((sum, phase) => sum + phase.closedByServer, 0);
  headline.push(headlineRow("Events lost, all fan-out phases", totalLost, "events", { value: 0, direction: "max" }));
  headline.push(headlineRow("Watches closed by the server, all fan-out phases", totalClosed, "watches", { value: 0, direction: "max" }));
  const timing = (size: number, variant: "consistent" | "rv0", paged: boolean, protocol: string): ListTiming | undefined =>
    lists.timings.find((entry) => entry.items === size && entry.variant === variant && entry.paged === paged && entry.protocol === protocol);
  const sizeName = (size: number): string => (size >= 1000 ? `${size / 1000}k` : String(size));
  for (const size of [small, large]) {
    for (const [variant, paged, protocol] of [
      ["consistent", false, "h1"],
      ["consistent", false, "h2"],
      ["rv0", false, "h1"],
      ["consistent", true, "h1"],
      ["rv0", true, "h1"],
    ] as const) {
      const entry = timing(size, variant, paged, protocol);
      if (entry === undefined) continue;
      const isTarget = full && size === small && variant === "consistent" && !paged;
      const kube = full && size === small && !paged ? (variant === "consistent" ? KUBE.consistentList10kMs : KUBE.rv0List10kMs) : undefined;
      headline.push(
        headlineRow(
          `List ${sizeName(size)}, ${variant === "consistent" ? "consistent (rv unset)" : "rv=0"}, ${paged ? `paged limit=${settings.pageLimit} (${entry.pages} pages)` : "whole"} (${protocol}), median of ${entry.runsMs.length}`,
          entry.medianMs,
          "ms",
          isTarget ? { value: TARGETS.consistentList10kMs, direction: "max" } : undefined,
          kube,
        ),
      );
    }
  }
  const growths = lists.rssGrowth.map((entry) => entry.growthMB);
  if (growths.length > 0) {
    headline.push(
      headlineRow(
        `RSS growth, ${settings.rssConcurrent} concurrent whole ${sizeName(small)} lists (worst of ${growths.length} rounds)`,
        Math.max(...growths),
        "MiB",
        full ? { value: TARGETS.listRssGrowthMB, direction: "max" } : undefined,
        full ? KUBE.listRssGrowthMB : undefined,
      ),
    );
    headline.push(
      headlineRow(
        `RSS growth, ${settings.rssConcurrent} concurrent whole ${sizeName(small)} lists (median of ${growths.length} rounds)`,
        median(growths),
        "MiB",
        full ? { value: TARGETS.listRssGrowthMB, direction: "max" } : undefined,
        full ? KUBE.listRssGrowthMB : undefined,
      ),
    );
  }
  const steadyAt = (objects: number): SteadyMemory | undefined => lists.steady.find((entry) => entry.objects === objects);
  for (const entry of lists.steady)
    headline.push(headlineRow(`Steady RSS with ${thousands(entry.objects)} objects (restart + ${settings.steadyWaitMs / 1000} s)`, entry.rssMB, "MiB"));
  const steadySmall = steadyAt(small);
  const steadyLarge = steadyAt(large);
  const steadyEmpty = steadyAt(0);
  const perObject =
    steadySmall !== undefined && steadyLarge !== undefined ? ((steadyLarge.rssMB - steadySmall.rssMB) * (1 << 20)) / (large - small) : undefined;
  if (perObject !== undefined) headline.push(headlineRow(`RSS per cached object (${sizeName(small)} → ${sizeName(large)})`, perObject, "bytes"));
  if (lists.heap !== undefined)
    headline.push(
      headlineRow(
        "Live heap per cached object (heap snapshot; object + containers)",
        lists.heap.cachedObjectBytesPerObject + lists.heap.containerBytesPerObject,
        "bytes",
      ),
    );
  for (const load of lists.loads)
    headline.push(headlineRow(`Load rate, ${thousands(load.created)} creates over HTTP/2 at c=${load.concurrency}`, load.perSecond, "creates/s"));

  const ratios: RatioRow[] = [];
  const ratio = (label: string, numerator: number | undefined, denominator: number | undefined): void => {
    if (numerator === undefined || denominator === undefined || !Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) return;
    ratios.push({ ratio: label, numerator: round(numerator), denominator: round(denominator), value: round(numerator / denominator) });
  };
  const bigHigh = findPhase(fanout.phases, bigWatchers, highRate, "h1");
  if (bigHigh !== undefined)
    ratio(`events delivered/s / events due/s, ${bigHigh.label}`, bigHigh.events.perSecond, bigHigh.writes.perSecond * bigHigh.watchers);
  const cpuPerEvent = (phase: FanoutPhase | undefined): number | undefined =>
    phase === undefined || phase.events.received === 0 ? undefined : ((phase.serverCpuPercent / 100) * phase.windowS * 1e6) / phase.events.received;
  const bare = (mode: string, rate: number): FanoutPhase | undefined =>
    fanoutLimits.find((phase) => phase.label.startsWith(mode) && phase.targetWritesPerSecond === rate);
  for (const rate of [lowRate, highRate]) {
    const server = findPhase(fanout.phases, bigWatchers, rate, "h1");
    const bareString = bare("bare, string", rate);
    const bareBatch = bare("bare, batched", rate);
    ratio(`server CPU per event / bare node (string per event), ${thousands(bigWatchers)} @ ${rate}`, cpuPerEvent(server), cpuPerEvent(bareString));
    ratio(`server CPU per event / bare node (batched Buffer), ${thousands(bigWatchers)} @ ${rate}`, cpuPerEvent(server), cpuPerEvent(bareBatch));
    ratio(
      `server delay p99 from write sent / bare node (string per event), ${thousands(bigWatchers)} @ ${rate}`,
      server?.delayFromIssue.p99Ms,
      bareString?.delayFromIssue.p99Ms,
    );
    ratio(
      `server delay p99 from write sent / bare node (batched Buffer), ${thousands(bigWatchers)} @ ${rate}`,
      server?.delayFromIssue.p99Ms,
      bareBatch?.delayFromIssue.p99Ms,
    );
    ratio(`server writes/s achieved / bare node (batched Buffer), ${thousands(bigWatchers)} @ ${rate}`, server?.writes.perSecond, bareBatch?.writes.perSecond);
  }
  const h2High = findPhase(fanout.phases, settings.h2Watchers, highRate, "h2");
  // From the write being sent: the delay from the ack is negative when the ack trails the fan-out.
  if (bigHigh !== undefined && h2High !== undefined)
    ratio(
      `watch p99 from write sent, h2 streams / TLS connection each (${thousands(bigWatchers)} @ ${highRate})`,
      h2High.delayFromIssue.p99Ms,
      bigHigh.delayFromIssue.p99Ms,
    );
  for (const size of [small, large]) {
    const whole = timing(size, "consistent", false, "h1");
    ratio(`list ${sizeName(size)}: consistent / rv=0 (whole, h1)`, whole?.medianMs, timing(size, "rv0", false, "h1")?.medianMs);
    ratio(`list ${sizeName(size)}: paged / whole (consistent, h1)`, timing(size, "consistent", true, "h1")?.medianMs, whole?.medianMs);
    ratio(`list ${sizeName(size)}: h2 / h1 (consistent whole)`, timing(size, "consistent", false, "h2")?.medianMs, whole?.medianMs);
    if (whole !== undefined) ratio(`list ${sizeName(size)} consistent whole: MiB/s of body served`, whole.bodyMiB / (whole.medianMs / 1000), 1);
  }
  ratio(
    `list time ${sizeName(large)} / ${sizeName(small)} (consistent whole, h1; ${large / small} × the items)`,
    timing(large, "consistent", false, "h1")?.medianMs,
    timing(small, "consistent", false, "h1")?.medianMs,
  );
  if (growths.length > 0)
    ratio(
      `RSS growth (worst) / bodies in flight (${settings.rssConcurrent} × ${lists.rssGrowthListMiB} MiB)`,
      Math.max(...growths),
      settings.rssConcurrent * lists.rssGrowthListMiB,
    );
  const objectBytes = ((timing(small, "consistent", false, "h1")?.bodyMiB ?? 0) * (1 << 20)) / small;
  if (perObject !== undefined) ratio("RSS per cached object / its JSON size", perObject, objectBytes);
  if (lists.heap !== undefined)
    ratio("live heap per cached object / its JSON size", lists.heap.cachedObjectBytesPerObject + lists.heap.containerBytesPerObject, objectBytes);
  if (steadyEmpty !== undefined && steadyLarge !== undefined) ratio(`steady RSS with ${sizeName(large)} objects / empty`, steadyLarge.rssMB, steadyEmpty.rssMB);

  const date = new Date().toISOString().slice(0, 10);
  const results: WatchResults = {
    name: "watch",
    date,
    mode: settings.quick ? "quick" : "full",
    environment: {
      ...machineEnvironment(REPO_ROOT),
      watchers: `${settings.watchWorkers} child processes of the bench (watchers spread evenly), same machine as the server`,
      "other processes' CPU at start (% of a core)": backgroundAtStart,
      "waited for quiet (s)": gate.summary().waitedS,
      "phases repeated because other processes took CPU": gate.summary().repeatedPhases.join(", ") || "none",
    },
    settings: {
      watcherCounts: settings.watcherCounts.join(", "),
      writeRates: settings.rates.join(", "),
      phaseSeconds: settings.phaseMs / 1000,
      h2Watchers: settings.h2 ? settings.h2Watchers : 0,
      h2Connections: settings.h2 ? Math.min(settings.watchWorkers, settings.h2Watchers) * settings.h2SessionsPerWorker : 0,
      watcherThreads: settings.watchWorkers,
      bodyBytes: settings.bodyBytes,
      listSmall: small,
      listLarge: large,
      pageLimit: settings.pageLimit,
      loadConcurrency: settings.loadConcurrency,
      rssConcurrentLists: settings.rssConcurrent,
      rssSampleMs: settings.rssIntervalMs,
      storageBackend: "sqlite",
    },
    targets: {
      watch: `p99 ≤ ${TARGETS.watchP99Ms100At200} ms at 100 watchers @ 200 writes/s and at 1,000 @ 20; 1,000 @ 200 with 0 lost and p99 ≤ ${TARGETS.watchP99Ms1000At200} ms`,
      list: `consistent 10k list ≤ ${TARGETS.consistentList10kMs} ms`,
      listMemory: `RSS growth during 5 concurrent whole 10k lists ≤ ${TARGETS.listRssGrowthMB} MB`,
    },
    kubeReference: {
      system: "kube-apiserver 1.28 + etcd, same conditions",
      "watch p99, 100 watchers @ 200 writes/s (ms)": KUBE.watchP99Ms100At200,
      "1,000 watchers @ 200 writes/s": "almost every watch cut, 89 % of events lost",
      "consistent 10k list (ms)": KUBE.consistentList10kMs,
      "rv=0 10k list (ms)": KUBE.rv0List10kMs,
      "RSS growth, 5 concurrent 10k lists (MB)": KUBE.listRssGrowthMB,
    },
    headline,
    ratios,
    fleets: [...fanout.fleets, ...limitRuns.flatMap((run) => run.fleets)],
    fanout: fanout.phases,
    fanoutLimits,
    ...(fanout.heapCheck === undefined ? {} : { watchHeap: fanout.heapCheck }),
    lists,
    profiles,
    profiledFanoutPhases,
    notes: notes(settings, fanout, lists),
    sectionSeconds,
    totalBenchSeconds: round((performance.now() - began) / 1000),
  };
  mkdirSync(settings.outDir, { recursive: true });
  const base = join(settings.outDir, `${date}-watch${settings.quick ? "-quick" : ""}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${base}.md`, renderWatchMarkdown(results));
  log("");
  log(watchPhaseTable(results.fanout));
  log("");
  log(listTable(results.lists.timings));
  log("");
  log(`wrote ${base}.json and ${base}.md (${results.totalBenchSeconds} s)`);
}

function notes(settings: Settings, fanout: FanoutResults, lists: ListResults): string[] {
  const busy = fanout.phases.filter((phase) => phase.otherCpuPercent >= QUIET_THRESHOLD_PERCENT);
  const clientBound = fanout.phases.filter((phase) => phase.busiestClientThreadPercent >= 90);
  const incomplete = fanout.phases.filter((phase) => !phase.drainComplete);
  return [
    busy.length === 0
      ? `No other process used ${QUIET_THRESHOLD_PERCENT} % of a core or more during any fan-out phase.`
      : `WARNING: other processes used CPU during ${busy.map((phase) => `${phase.label} (${phase.otherCpuPercent} %)`).join(", ")}; those delays are overstated.`,
    clientBound.length === 0
      ? "No client thread (writer or watcher process) reached 90 % of a core in any phase: the watchers kept up with what the server sent (see 'busiest client thread')."
      : `A client thread (writer or watcher process) was at ≥ 90 % of a core during ${clientBound.map((phase) => phase.label).join(", ")}: there the client side may have added delay.`,
    ...(incomplete.length === 0 ? [] : [`Phases whose drain gave up (no progress for 3 s, or 30 s): ${incomplete.map((phase) => phase.label).join(", ")}.`]),
    `Watchers: ${settings.watchWorkers} child processes of the bench (forked, IPC only between phases), watchers spread evenly; h1 = every watch on its own TLS connection (node:https, agent: false, so no keep-alive and no sharing); h2 = the watches as streams over one HTTP/2 connection per watcher process (client-go's 4 MiB stream / 1 GiB connection windows).`,
    "The machine has 2 cores for the server, the watcher processes and the writer: when the server takes one core, the client side has the other. 'client CPU' is the bench process (the writer) plus its watcher processes; 'busiest client thread' the most loaded single thread among them.",
    `Writer: one HTTP/2 connection in the bench process (no watcher shares its event loop), open-loop at the target rate (write i issued at start + i/rate, at most 256 in flight); even writes create a ConfigMap of ~${settings.bodyBytes} bytes, odd ones merge-patch one of ${settings.poolSize} existing ones (ADDED and MODIFIED events of ~1.1 KiB).`,
    "Delay = arrival of the event at the watcher (CLOCK_MONOTONIC, per read; the watcher processes and the writer read the same machine clock) − the writer receiving the 201/200 of the write with that resourceVersion. The server answers the writer when the write commits and fans the event out at the start of the next event-loop turn, together with every event committed until then; the writer's 201/200 travels on another connection and is read on the writer's schedule, so a delay can still be negative (min column).",
    `Events lost = (acknowledged writes × watches open at the phase start) − events received with a matching resourceVersion; after the writes, the bench waits until every open watch has every event (giving up after ${DRAIN_STALL_MS / 1000} s without progress or ${DRAIN_TIMEOUT_MS / 1000} s in all, so "lost" includes events later than that). Every phase runs on freshly opened watches (a repeated phase too), from the resourceVersion of a list taken just before they open, so no phase inherits what an earlier one left in the server.`,
    "The server is one thread: fanning events out to N watchers runs on the same event loop as the writes, so a write that arrives during a fan-out waits for it, and the delay from the ack understates the fan-out lag when N is large. The delay from the write being sent (commit + fan-out + the watcher's read) and the writes/s achieved (an open-loop writer falls behind when the server is saturated) are reported next to it.",
    "Lists: timed from the request to the last byte of the last page, one client connection, bodies counted afterwards. Consistent = resourceVersion unset (served from the watch cache once it has caught up with the store); rv=0 = any cached state. Paged: limit=500, continue tokens followed to the end (continued pages are read from storage at the token's revision).",
    `RSS growth: on a server just restarted with the small set (steady, no list served yet), VmRSS sampled every ${settings.rssIntervalMs} ms (and VmHWM reset via /proc/<pid>/clear_refs before each round, read after, when writable) during ${settings.rssConcurrent} concurrent whole lists; growth = peak − the median RSS over the 300 ms right before.`,
    `Steady RSS: a restart of the server on the loaded data dir, RSS ${settings.steadyWaitMs / 1000} s after /readyz (includes garbage of the cache fill not yet collected; the heap snapshot shows the live part). RSS per cached object = difference between the large and the small set / the objects added.`,
    ...(lists.heap === undefined
      ? []
      : [
          `Heap snapshot: node --heapsnapshot-signal on the restarted server with ${lists.heap.cachedObjects} cached objects; V8 collects garbage before it writes one. RSS after the snapshot: ${lists.heapRssMB ?? "?"} MiB.`,
        ]),
    "Profiles come from separate server runs under `node --cpu-prof`; only the samples of the measured window are ranked; total % includes callees.",
    ...(fanout.heapCheck === undefined
      ? []
      : [
          `Heap retained by open watches: the fan-out server runs with --heapsnapshot-signal; snapshots (V8 collects garbage first) right after the ${fanout.heapCheck.watchers}-watcher fleet opened and after its phases, the watches still open. What grows with events delivered while nothing else changes is held for as long as the watches stay open (30-60 min for informers).`,
        ]),
    "MB in the targets is read as MiB (/proc VmRSS).",
  ];
}
