/**
 * The server on etcd (`npm run bench -- --suite etcd`, about 4 minutes): one local etcd member
 * (Debian's etcd, data in /dev/shm), and the CLI as a child process with `--storage-backend
 * etcd3`. Measures creates/s at c=16, GETs/s at c=64 (HTTP/1.1 keep-alive, ~1 KiB ConfigMaps),
 * a consistent LIST (resourceVersion unset: the cache after asking etcd for its revision) of 10k
 * ConfigMaps, and watch delay with 100 watchers while a writer writes 200 ConfigMaps/s: once with
 * the watch suite's method (watchers in 4 worker threads, creates and patches) and once with every
 * watcher and the writer on the bench's main thread (the earlier method, whose own event loop adds
 * to the delay); after the first, a second 4-process phase with the watcher processes at nice 19,
 * whose write latency beside the first phase's shows what the bench's own watchers cost the
 * writes by competing for the 2 cores (etcd runs with --metrics=extensive: its own Txn time per
 * phase). etcd's count of the calls it handled per create and per GET (its /metrics) is a
 * figure that does not depend on the machine's load. The limit in the same run: etcd's own put rate over gRPC at c=16 (one Txn with one Put each, from
 * this process, without the server), and etcd's own watch delay with one etcd watcher and no
 * server (bench/lib/etcd-raw-watch.ts), the floor under the server's watch delay; etcd's WAL fsync
 * and backend commit p99 in the watch phase. kube-apiserver 1.28 on etcd 3.4 is the reference the
 * issue gives. Writes bench/results/<date>-etcd.{json,md}.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../src/storage/etcd/etcd-client.js";
import { startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { type Client, h1Client, h2Client, type Target } from "./lib/client.js";
import { callsPerOperation, describeCalls, etcdCalls } from "./lib/etcd-metrics.js";
import { measureRawEtcdWatch, type RawWatchResult } from "./lib/etcd-raw-watch.js";
import { machineEnvironment } from "./lib/environment.js";
import { loadConfigMaps } from "./lib/lists.js";
import { configMapBody, namespaceBody } from "./lib/objects.js";
import { type Format, type GetResult, type ListResult, measureGets, measureList, measureWatch, rawClient, type WatchResult } from "./lib/probes.js";
import { backgroundCpuPercent, makeTempDir, processCpuSeconds, removeTempDir } from "./lib/processes.js";
import { table } from "./lib/report.js";
import { adminCredentials, REPO_ROOT, startServerChild } from "./lib/server.js";
import { histogramBuckets, phaseQuantileMs, scrapeMetrics } from "./lib/server-histograms.js";
import { round, type LatencySummary } from "./lib/stats.js";
import { type FanoutPhase, PacedWriter, runFanoutPhase, WatchFleet } from "./lib/watch-fanout.js";

export interface EtcdSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
}

const JSON_FORMAT: Format = { name: "json", accept: "application/json" };
const LIST_NAMESPACE = "bench-etcd";
const CREATE_NAMESPACE = "bench-etcd-create";
const WATCH_NAMESPACE = "bench-etcd-watch";
const FLEET_NAMESPACE = "bench-etcd-fleet";
/** kube-apiserver 1.28 on etcd 3.4, as issue #18 gives it. */
const KUBE = { createsPerSecond: 1009, getsPerSecond: 1550, listMs: 445, watchP99Ms: 988 };
const TARGETS = { createsPerSecond: 2 * KUBE.createsPerSecond, getsPerSecond: 2 * KUBE.getsPerSecond, listMs: 130, watchP99Ms: 20 };
const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface RateResult {
  readonly perSecond: number;
  readonly count: number;
  readonly failures: number;
  /** CPU per operation (µs) of the process given as `pid`: the server, or the bench process itself for the raw etcd puts. */
  readonly serverCpuMicrosPerOperation?: number;
}

/** `concurrency` loops running `operation` for warm-up then `phaseMs`; counts successes in the phase. */
async function measureRate(
  concurrency: number,
  timing: { readonly warmupMs: number; readonly phaseMs: number; readonly pid?: number },
  operation: (worker: number, sequence: number) => Promise<boolean>,
): Promise<RateResult> {
  let measuring = false;
  let stop = false;
  let count = 0;
  let failures = 0;
  const workers = Array.from({ length: concurrency }, async (_, worker) => {
    for (let sequence = 0; !stop; sequence++) {
      const ok = await operation(worker, sequence);
      if (!measuring) continue;
      if (ok) count++;
      else failures++;
    }
  });
  await sleep(timing.warmupMs);
  const cpuBefore = timing.pid === undefined ? 0 : processCpuSeconds(timing.pid);
  const started = performance.now();
  measuring = true;
  await sleep(timing.phaseMs);
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  const cpu = timing.pid === undefined ? 0 : processCpuSeconds(timing.pid) - cpuBefore;
  stop = true;
  await Promise.all(workers);
  return {
    perSecond: round(count / seconds),
    count,
    failures,
    ...(timing.pid === undefined ? {} : { serverCpuMicrosPerOperation: round((cpu * 1e6) / Math.max(1, count)) }),
  };
}

/** Operations run to count etcd calls per operation (a fixed count, not a timed phase). */
const COUNTED_CREATES = 2000;
const COUNTED_GETS = 4000;
const COUNTED_PATCHES = 2000;

interface CountedCalls {
  readonly operations: number;
  /** etcd gRPC calls handled per operation, by method (etcd's own /metrics). */
  readonly etcdCallsPerOperation: Record<string, number>;
  readonly serverCpuMicrosPerOperation: number;
}

/** Runs `count` operations `concurrency` at a time and reads etcd's call counters around them. */
async function countCalls(
  etcdUrl: string,
  pid: number,
  count: number,
  concurrency: number,
  operation: (index: number) => Promise<boolean>,
): Promise<CountedCalls> {
  const before = await etcdCalls(etcdUrl);
  const cpuBefore = processCpuSeconds(pid);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        if (!(await operation(index))) throw new Error(`counted operation ${index} failed`);
      }
    }),
  );
  const cpu = processCpuSeconds(pid) - cpuBefore;
  return {
    operations: count,
    etcdCallsPerOperation: callsPerOperation(before, await etcdCalls(etcdUrl), count),
    serverCpuMicrosPerOperation: round((cpu * 1e6) / count),
  };
}

/** Where a write's time went in a watch phase, from histograms scraped before and after it (bucket bounds, ms). */
interface WriteSplit {
  /** The server's etcd transaction for a create or update (sent until its answer is handled: the server's event loop included). */
  readonly storageP50: PhaseQuantile;
  readonly storageP99: PhaseQuantile;
  /** The whole write request as the server times it. */
  readonly requestP50: PhaseQuantile;
  readonly requestP99: PhaseQuantile;
  /** etcd's own handling of a Txn (its grpc_server_handling_seconds, from --metrics=extensive): the handler's run, not its queueing. */
  readonly etcdTxnP50: PhaseQuantile;
  readonly etcdTxnP99: PhaseQuantile;
  /** etcd's disk (its data dir is in /dev/shm, a tmpfs). */
  readonly walFsyncP99: PhaseQuantile;
  readonly backendCommitP99: PhaseQuantile;
}

type PhaseQuantile = ReturnType<typeof phaseQuantileMs>;

/** Scrapes the server's and etcd's /metrics around `phase` and splits the writes' time from them. */
async function withWriteSplit<T>(setup: Client, etcdUrl: string, phase: () => Promise<T>): Promise<{ result: T; split: WriteSplit }> {
  const serverBefore = await scrapeMetrics(setup);
  const etcdBefore = await (await fetch(`${etcdUrl}/metrics`)).text();
  const result = await phase();
  const serverAfter = await scrapeMetrics(setup);
  const etcdAfter = await (await fetch(`${etcdUrl}/metrics`)).text();
  const server = (name: string, keep: (labels: string) => boolean, q: number) =>
    phaseQuantileMs(histogramBuckets(serverBefore, name, keep), histogramBuckets(serverAfter, name, keep), q);
  const etcd = (name: string, keep: (labels: string) => boolean, q: number) =>
    phaseQuantileMs(histogramBuckets(etcdBefore, name, keep), histogramBuckets(etcdAfter, name, keep), q);
  const storageWrite = (labels: string): boolean => /operation="(create|update)"/.test(labels) && labels.includes('type="configmaps"');
  const requestWrite = (labels: string): boolean => /verb="(POST|PATCH)"/.test(labels) && labels.includes('resource="configmaps"');
  const txn = (labels: string): boolean => labels.includes('grpc_method="Txn"');
  const all = (): boolean => true;
  return {
    result,
    split: {
      storageP50: server("etcd_request_duration_seconds", storageWrite, 0.5),
      storageP99: server("etcd_request_duration_seconds", storageWrite, 0.99),
      requestP50: server("apiserver_request_duration_seconds", requestWrite, 0.5),
      requestP99: server("apiserver_request_duration_seconds", requestWrite, 0.99),
      etcdTxnP50: etcd("grpc_server_handling_seconds", txn, 0.5),
      etcdTxnP99: etcd("grpc_server_handling_seconds", txn, 0.99),
      walFsyncP99: etcd("etcd_disk_wal_fsync_duration_seconds", all, 0.99),
      backendCommitP99: etcd("etcd_disk_backend_commit_duration_seconds", all, 0.99),
    },
  };
}

interface FleetWatch {
  readonly phase: FanoutPhase;
  readonly split: WriteSplit;
  /** The same writes with the bench's watcher processes at nice 19: they take the CPU only when the server and etcd leave it. */
  readonly yielding: FanoutPhase;
  readonly yieldingSplit: WriteSplit;
}

/**
 * The watch suite's fan-out method: watchers in 4 worker processes (own TLS connection each), a
 * paced writer of creates and patches. Then a second phase on the same watchers with their
 * processes at nice 19: on 2 cores they compete with the server and etcd for the CPU, and the
 * difference in the writes' latency between the two phases is what that competition costs (the
 * second phase's watch delays count the starved watchers and are not a result).
 */
async function measureWatchFleet(target: Target, setup: Client, pid: number, seconds: number, etcdUrl: string): Promise<FleetWatch> {
  const pool = Array.from({ length: 50 }, (_, index) => `pool-${String(index).padStart(3, "0")}`);
  for (const name of pool) {
    const reply = await setup.request("POST", `/api/v1/namespaces/${FLEET_NAMESPACE}/configmaps`, configMapBody(FLEET_NAMESPACE, name, 1024));
    if (reply.status !== 201) throw new Error(`pool ${name}: HTTP ${reply.status}`);
  }
  const listed = await setup.request("GET", `/api/v1/namespaces/${FLEET_NAMESPACE}/configmaps?limit=1`, undefined, true);
  const revision = /"resourceVersion":"(\d+)"/.exec(String(listed.body ?? ""))?.[1] ?? "0";
  const spec = {
    protocol: "h1" as const,
    watchers: 100,
    workers: 4,
    sessionsPerWorker: 1,
    target,
    path: `/api/v1/namespaces/${FLEET_NAMESPACE}/configmaps?watch=1&resourceVersion=${revision}`,
    openConcurrency: 32,
  };
  const fleet = await WatchFleet.open(spec);
  const writerClient = await h2Client(target);
  try {
    const writer = new PacedWriter(writerClient, FLEET_NAMESPACE, pool, 1024);
    const first = await withWriteSplit(setup, etcdUrl, () =>
      runFanoutPhase({
        label: "100 @ 200 writes/s (h1, 4 watcher threads)",
        fleet,
        spec,
        writer,
        rate: 200,
        durationMs: seconds * 1000,
        serverPid: pid,
        expectedBefore: 0,
        closedBefore: 0,
        tag: `wfleet-${Date.now().toString(36)}`,
      }),
    );
    for (const watcherPid of fleet.pids) setPriority(watcherPid, 19);
    const second = await withWriteSplit(setup, etcdUrl, () =>
      runFanoutPhase({
        label: "100 @ 200 writes/s (h1, 4 watcher threads at nice 19)",
        fleet,
        spec,
        writer,
        rate: 200,
        durationMs: seconds * 1000,
        serverPid: pid,
        expectedBefore: first.result.expectedAfter,
        closedBefore: first.result.closedAfter,
        tag: `wnice-${Date.now().toString(36)}`,
      }),
    );
    return { phase: first.result.phase, split: first.split, yielding: second.result.phase, yieldingSplit: second.split };
  } finally {
    writerClient.close();
    await fleet.close();
  }
}

const bound = (atMostMs: number | undefined): string => (atMostMs === undefined ? "—" : `≤ ${round(atMostMs)}`);
const ms = (summary: LatencySummary): string => `${round(summary.p50Ms)} / ${round(summary.p90Ms)} / ${round(summary.p99Ms)} / ${round(summary.maxMs)}`;

export async function runEtcdSuite(options: EtcdSuiteOptions): Promise<void> {
  const quick = options.quick;
  const warmupMs = quick ? 500 : 2000;
  const phaseMs = quick ? 2000 : 8000;
  const items = quick ? 1000 : 10_000;
  // --metrics=extensive: etcd's grpc_server_handling_seconds, its own time per Txn (the write split below).
  const etcd = await startEtcdCluster({ size: 1, extraArgs: ["--metrics=extensive"] });
  const dataDir = makeTempDir("orch-bench-etcd-");
  try {
    const otherCpuBefore = round(await backgroundCpuPercent(1000));
    log("etcd suite: raw etcd puts c=16 (the limit)");
    // The server's own client (Range and Txn over a kept HTTP/2 connection framed by hand, h2-unary.ts), then
    // grpc-js's call stack (directUnary: false); this process's CPU per Txn for both.
    const value = Buffer.from(configMapBody("raw", "raw", 1024));
    const rawPhase = async (directUnary: boolean): Promise<RateResult> => {
      const raw = new EtcdClient({ endpoints: etcd.endpoints, directUnary });
      try {
        return await measureRate(16, { warmupMs, phaseMs, pid: process.pid }, async (worker, sequence) => {
          try {
            const key = Buffer.from(`/bench-raw-${directUnary ? "h2" : "grpcjs"}/${worker}/${sequence}`);
            await raw.txn({ compare: [], success: [{ requestPut: { key, value } }], failure: [] }, "");
            return true;
          } catch {
            return false;
          }
        });
      } finally {
        raw.close();
      }
    };
    const rawPuts = await rawPhase(true);
    log("etcd suite: raw etcd puts c=16 through grpc-js's call stack");
    const rawPutsGrpcJs = await rawPhase(false);
    // etcd's own watch delay with no server (the floor under the server's watch figures).
    const rawWatchSeconds = quick ? 3 : 10;
    // One etcd watcher: the server keeps one etcd watch (its cache's) whatever its number of watchers.
    log("etcd suite: raw etcd watch, 1 watcher @ 200 puts/s (no server)");
    const rawWatch: RawWatchResult = await measureRawEtcdWatch(etcd.endpoints, { watchers: 1, rate: 200, seconds: rawWatchSeconds, tag: "w1" });

    const server = await startServerChild({
      dataDir,
      extraArgs: ["--storage-backend", "etcd3", "--etcd-servers", etcd.endpoints.join(","), "--etcd-compaction-interval", "0"],
    });
    const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
    try {
      const client = h1Client(target, 64);
      for (const namespace of [LIST_NAMESPACE, CREATE_NAMESPACE, WATCH_NAMESPACE, FLEET_NAMESPACE]) {
        const reply = await client.request("POST", "/api/v1/namespaces", namespaceBody(namespace));
        if (reply.status !== 201) throw new Error(`namespace ${namespace}: HTTP ${reply.status}`);
      }
      log("etcd suite: creates c=16");
      const creates = await measureRate(16, { warmupMs, phaseMs, pid: server.pid }, async (worker, sequence) => {
        const name = `c-${worker}-${sequence}`;
        const reply = await client.request("POST", `/api/v1/namespaces/${CREATE_NAMESPACE}/configmaps`, configMapBody(CREATE_NAMESPACE, name, 1024));
        return reply.status === 201;
      });
      log("etcd suite: etcd calls per create");
      const etcdUrl = etcd.endpoints[0] ?? "";
      const countedCreates = await countCalls(etcdUrl, server.pid, COUNTED_CREATES, 16, async (index) => {
        const reply = await client.request(
          "POST",
          `/api/v1/namespaces/${CREATE_NAMESPACE}/configmaps`,
          configMapBody(CREATE_NAMESPACE, `counted-${index}`, 1024),
        );
        return reply.status === 201;
      });
      log("etcd suite: etcd calls per patch");
      // Merge patches of objects this server wrote: kube starts an update from its cached object, so no Range.
      const countedPatches = await countCalls(etcdUrl, server.pid, COUNTED_PATCHES, 16, async (index) => {
        const reply = await client.request(
          "PATCH",
          `/api/v1/namespaces/${CREATE_NAMESPACE}/configmaps/counted-${index % 100}`,
          JSON.stringify({ data: { sequence: String(index) } }),
          false,
          "application/merge-patch+json",
        );
        return reply.status === 200;
      });
      log(`etcd suite: loading ${items} ConfigMaps`);
      await loadConfigMaps(client, LIST_NAMESPACE, 0, items, 32, 1024);
      client.close();
      const probe = rawClient(target, 64);
      log("etcd suite: GETs c=64");
      const gets: GetResult = await measureGets(probe, server.pid, JSON_FORMAT, { warmupMs, phaseMs, namespace: LIST_NAMESPACE });
      log("etcd suite: etcd calls per GET");
      const countedGets = await countCalls(etcdUrl, server.pid, COUNTED_GETS, 64, async (index) => {
        const reply = await probe.get(`/api/v1/namespaces/${LIST_NAMESPACE}/configmaps/item-${String(index % 100).padStart(6, "0")}`, JSON_FORMAT.accept);
        return reply.status === 200;
      });
      log(`etcd suite: LIST of ${items}`);
      const consistentList: ListResult = await measureList(probe, server.pid, JSON_FORMAT, { rounds: 5, namespace: LIST_NAMESPACE, query: "" });
      const anyList: ListResult = await measureList(probe, server.pid, JSON_FORMAT, { rounds: 5, namespace: LIST_NAMESPACE, query: "resourceVersion=0" });
      probe.close();
      log("etcd suite: watch 100 watchers @ 200 writes/s");
      const watch: WatchResult = await measureWatch(target, server.pid, JSON_FORMAT, {
        watchers: 100,
        rate: 200,
        seconds: quick ? 3 : 10,
        runId: "wetcd",
        namespace: WATCH_NAMESPACE,
      });
      log("etcd suite: watch 100 watchers @ 200 writes/s, watchers in 4 threads (the watch suite's method)");
      const setup = h1Client(target, 4);
      const fleet = await measureWatchFleet(target, setup, server.pid, quick ? 3 : 10, etcdUrl);
      const fleetWatch = fleet.phase;
      const fleetWriteSplit = fleet.split;
      setup.close();
      const otherCpuAfter = round(await backgroundCpuPercent(1000, [server.pid]));

      const ratios = {
        createsOverKube: round(creates.perSecond / KUBE.createsPerSecond),
        getsOverKube: round(gets.perSecond / KUBE.getsPerSecond),
        consistentListOverKube: round(consistentList.medianMs / KUBE.listMs),
        watchP99OverKube: round(watch.delayMs.p99Ms / KUBE.watchP99Ms),
        createsOverRawEtcdPuts: round(creates.perSecond / Math.max(1, rawPuts.perSecond)),
      };
      const verdict = (met: boolean): string => (met ? "met" : "not met");
      const rows: string[][] = [
        [
          "creates/s c=16",
          String(creates.perSecond),
          String(KUBE.createsPerSecond),
          `≥ ${TARGETS.createsPerSecond}`,
          verdict(creates.perSecond >= TARGETS.createsPerSecond),
        ],
        ["GETs/s c=64", String(gets.perSecond), String(KUBE.getsPerSecond), `≥ ${TARGETS.getsPerSecond}`, verdict(gets.perSecond >= TARGETS.getsPerSecond)],
        [
          `consistent LIST of ${items}, median ms`,
          String(consistentList.medianMs),
          String(KUBE.listMs),
          `≤ ${TARGETS.listMs}`,
          verdict(consistentList.medianMs <= TARGETS.listMs),
        ],
        [
          "watch delay p99 ms (from the write being sent), 100 watchers @ 200 writes/s, watchers in 4 threads",
          String(round(fleetWatch.delayFromIssue.p99Ms)),
          String(KUBE.watchP99Ms),
          `≤ ${TARGETS.watchP99Ms}`,
          verdict(fleetWatch.delayFromIssue.p99Ms <= TARGETS.watchP99Ms),
        ],
        [
          "watch delay p99 ms from the write's acknowledgement (the write's own latency left out), same phase as the row above",
          String(round(fleetWatch.delay.p99Ms)),
          "—",
          "— (the target counts from the write being sent)",
          "for reading only",
        ],
        [
          "watch delay p99 ms (from the write being sent), 100 watchers @ 200 writes/s, watchers and writer on one thread",
          String(round(watch.delayMs.p99Ms)),
          String(KUBE.watchP99Ms),
          `≤ ${TARGETS.watchP99Ms}`,
          verdict(watch.delayMs.p99Ms <= TARGETS.watchP99Ms),
        ],
      ];
      const results = {
        suite: "etcd",
        quick,
        items,
        environment: machineEnvironment(REPO_ROOT),
        otherCpuPercent: { before: otherCpuBefore, after: otherCpuAfter },
        kube: KUBE,
        targets: TARGETS,
        rawEtcdPuts: rawPuts,
        rawEtcdPutsGrpcJs: rawPutsGrpcJs,
        creates,
        gets,
        consistentList,
        anyList,
        watch,
        fleetWatch,
        fleetWriteSplit,
        fleetYielding: fleet.yielding,
        fleetYieldingWriteSplit: fleet.yieldingSplit,
        rawWatch,
        countedCreates,
        countedGets,
        countedPatches,
        ratios,
      };
      const markdown = [
        `# orch on etcd${quick ? " (quick)" : ""}`,
        "",
        "One local etcd 3.4 member (data in /dev/shm) and the CLI as a child process with `--storage-backend etcd3`; HTTP/1.1 keep-alive with the admin client certificate; ~1 KiB ConfigMaps.",
        `Other processes on the machine used ${otherCpuBefore} % of one core in the second before the run and ${otherCpuAfter} % in the second after it (of ${machineEnvironment(REPO_ROOT)["cores"]} cores): on a shared machine the figures are understated; rerun on a quiet one with \`npm run bench -- --suite etcd\`.`,
        "",
        "## Against kube-apiserver 1.28 on etcd 3.4 (issue #18's reference) and the targets",
        "",
        table(["measure", "orch", "kube 1.28", "target", "verdict"], rows),
        "",
        "## The limit in the same run: etcd's own put rate",
        "",
        table(
          ["measure", "per second", "orch creates / it"],
          [
            ["raw etcd puts over gRPC, c=16 (one Txn with one Put each, ~1 KiB)", String(rawPuts.perSecond), String(ratios.createsOverRawEtcdPuts)],
            [
              "the same through grpc-js's call stack (`directUnary: false`: what the server used before h2-unary.ts)",
              String(rawPutsGrpcJs.perSecond),
              String(round(creates.perSecond / Math.max(1, rawPutsGrpcJs.perSecond))),
            ],
          ],
        ),
        "",
        "etcd's own watch delay, no orch server (measured before the server starts): a paced writer in the bench process puts ~1 KiB values at 200/s and one etcd watch of the prefix in the same process times each event (the server, too, keeps one etcd watch, its cache's, whatever its number of watchers). Its delay from the put being sent is etcd's commit plus one event's delivery on this machine: the floor under the server's rows above, which count from the create or patch being sent to orch and add orch's write path, its cache and the fan-out to 100 HTTP watchers.",
        "",
        table(
          ["measure (no server)", "p50 / p90 / p99 / max ms", "puts/s achieved, put latency p99 ms", "events received / expected"],
          [
            [
              `raw etcd watch delay from the put being sent, 1 watcher @ ${rawWatch.rate} puts/s`,
              ms(rawWatch.delayFromSend),
              `${rawWatch.putsPerSecond}, ${round(rawWatch.putLatency.p99Ms)}`,
              `${rawWatch.events.received} / ${rawWatch.events.expected}`,
            ],
            ["raw etcd watch delay from the put's acknowledgement, 1 watcher", ms(rawWatch.delayFromAck), "", ""],
          ],
        ),
        "",
        "## Details",
        "",
        table(
          ["measure", "value"],
          [
            ["creates: server CPU µs per create", String(creates.serverCpuMicrosPerOperation ?? "")],
            [
              "raw etcd puts: the bench process's CPU µs per Txn, kept HTTP/2 connection framed by hand (the server's path) / grpc-js's call stack",
              `${rawPuts.serverCpuMicrosPerOperation ?? ""} / ${rawPutsGrpcJs.serverCpuMicrosPerOperation ?? ""}`,
            ],
            ["creates: failures in the phase", String(creates.failures)],
            [
              `creates: server CPU µs per create over the ${COUNTED_CREATES} counted creates (after the timed phase: a warmer server)`,
              String(countedCreates.serverCpuMicrosPerOperation),
            ],
            [`creates: etcd calls per create (etcd's /metrics over ${COUNTED_CREATES} creates, c=16)`, describeCalls(countedCreates.etcdCallsPerOperation)],
            [
              `merge patches: etcd calls per patch (etcd's /metrics over ${COUNTED_PATCHES} patches of 100 objects the server wrote, c=16)`,
              describeCalls(countedPatches.etcdCallsPerOperation),
            ],
            ["merge patches: server CPU µs per patch", String(countedPatches.serverCpuMicrosPerOperation)],
            [`GETs: etcd calls per GET (etcd's /metrics over ${COUNTED_GETS} GETs, c=64)`, describeCalls(countedGets.etcdCallsPerOperation)],
            ["GETs: server CPU µs per GET", String(gets.serverCpuMicrosPerRequest)],
            [`LIST of ${items} at resourceVersion=0 (no etcd round trip), median ms`, String(anyList.medianMs)],
            ["consistent LIST: server CPU ms per list", String(consistentList.serverCpuMsPerList)],
            ["watch (4 watcher threads): events received / expected", `${fleetWatch.events.received} / ${fleetWatch.events.expected}`],
            ["watch (4 watcher threads): delay from the write being sent, p50 / p90 / p99 / max ms", ms(fleetWatch.delayFromIssue)],
            ["watch (4 watcher threads): delay from the write's acknowledgement, p50 / p90 / p99 / max ms", ms(fleetWatch.delay)],
            ["watch (4 watcher threads): writes/s achieved, write latency p99 ms", `${fleetWatch.writes.perSecond}, ${round(fleetWatch.writes.latency.p99Ms)}`],
            ["watch (4 watcher threads): server CPU % of a core, bench process CPU %", `${fleetWatch.serverCpuPercent}, ${fleetWatch.clientCpuPercent}`],
            [
              "watch (4 watcher threads): write's etcd transaction p50 / p99 ms, at most (server's etcd_request_duration_seconds buckets)",
              `${bound(fleetWriteSplit.storageP50.atMostMs)} / ${bound(fleetWriteSplit.storageP99.atMostMs)}`,
            ],
            [
              "watch (4 watcher threads): write request p50 / p99 ms, at most (server's apiserver_request_duration_seconds buckets)",
              `${bound(fleetWriteSplit.requestP50.atMostMs)} / ${bound(fleetWriteSplit.requestP99.atMostMs)}`,
            ],
            [
              "watch (4 watcher threads): etcd's own handling of a Txn p50 / p99 ms, at most (etcd's grpc_server_handling_seconds buckets, --metrics=extensive)",
              `${bound(fleetWriteSplit.etcdTxnP50.atMostMs)} / ${bound(fleetWriteSplit.etcdTxnP99.atMostMs)}`,
            ],
            [
              "watch (4 watcher threads): etcd's WAL fsync p99 / backend commit p99 ms, at most (etcd's own histograms; its data dir is in /dev/shm, a tmpfs)",
              `${bound(fleetWriteSplit.walFsyncP99.atMostMs)} / ${bound(fleetWriteSplit.backendCommitP99.atMostMs)}`,
            ],
            [
              "same writes, watcher processes at nice 19 (they yield the 2 cores to the server and etcd): write latency p50 / p90 / p99 / max ms",
              ms(fleet.yielding.writes.latency),
            ],
            [
              "same writes, watcher processes at nice 19: the server's etcd transaction p99 / write request p99 / etcd's own Txn handling p99 ms, at most",
              `${bound(fleet.yieldingSplit.storageP99.atMostMs)} / ${bound(fleet.yieldingSplit.requestP99.atMostMs)} / ${bound(fleet.yieldingSplit.etcdTxnP99.atMostMs)}`,
            ],
            [
              "same writes, watcher processes at nice 19: writes/s achieved, events received / expected (delays not a result: the watchers are starved)",
              `${fleet.yielding.writes.perSecond}, ${fleet.yielding.events.received} / ${fleet.yielding.events.expected}`,
            ],
            ["watch (one thread): events / expected", `${watch.events} / ${watch.expected}`],
            ["watch (one thread): p50 / p90 / max ms", `${round(watch.delayMs.p50Ms)} / ${round(watch.delayMs.p90Ms)} / ${round(watch.delayMs.maxMs)}`],
            ["watch (one thread): writes/s achieved", String(watch.writesPerSecond)],
            ["watch (one thread): creates the server refused (not counted in expected)", String(watch.failedWrites)],
          ],
        ),
        "",
      ].join("\n");
      mkdirSync(options.outDir, { recursive: true });
      const stem = join(options.outDir, `${new Date().toISOString().slice(0, 10)}-etcd${quick ? "-quick" : ""}`);
      writeFileSync(`${stem}.json`, `${JSON.stringify(results, null, 2)}\n`);
      writeFileSync(`${stem}.md`, markdown);
      log(markdown);
    } finally {
      await server.stop(5000);
    }
  } finally {
    await etcd.stop();
    removeTempDir(dataDir);
  }
}
