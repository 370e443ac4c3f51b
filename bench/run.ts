/**
 * orch-apiserver benchmarks.
 *
 *   npm run bench                         both suites: foundation (~2 minutes), then watch (~4 minutes)
 *   npm run bench -- --suite foundation   writes bench/results/<date>-foundation.{json,md}
 *   npm run bench -- --suite watch        writes bench/results/<date>-watch.{json,md} (see watch.ts)
 *   node dist/bench/run.js --quick        smoke run with short phases (writes <date>-<suite>-quick.*)
 *
 * Options: --suite foundation|watch|...|all (default all; see README.md), --workers N (foundation load-generator
 * threads, default 1), --watch-workers N (watcher threads, default 4), --no-profile, --no-h2,
 * --no-heap-snapshot, --profile-dir DIR (keep the raw .cpuprofile / .heapsnapshot files),
 * --out-dir DIR, --quiet-wait S (each suite waits up to S seconds in all for other processes to stop using CPU;
 * default 60, quick 0).
 *
 * Everything runs on this machine: the server is a child process (CLI, sqlite backend), the load
 * generator runs in worker threads of this process, so both share the machine's cores.
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { h1Client, type Client, type Credentials, type Protocol, type Target } from "./lib/client.js";
import { runPhase, type PhaseResult, type PhaseSpec } from "./lib/load.js";
import type { Scenario } from "./lib/load-types.js";
import { asRecord, configMapBody, namespaceBody } from "./lib/objects.js";
import { cleanup, installCleanup, makeTempDir, processMemory, spawnNode } from "./lib/processes.js";
import { QuietGate, QUIET_THRESHOLD_PERCENT } from "./lib/quiet.js";
import { analyseProfile } from "./lib/profile.js";
import { machineEnvironment } from "./lib/environment.js";
import {
  headlineRow,
  headlineTable,
  phaseTable,
  ratioTable,
  renderMarkdown,
  type BenchResults,
  type LimitResults,
  type ProfiledPhase,
  type RatioRow,
  type StartupResults,
} from "./lib/report.js";
import { adminCredentials, REPO_ROOT, startServerChild } from "./lib/server.js";
import { measureSqlite } from "./lib/sqlite-raw.js";
import { runWatchSuite } from "./watch.js";
import { runWatchTailSuite } from "./watch-tail.js";
import { runRbacSuite } from "./rbac.js";
import { runAuditSuite } from "./audit.js";
import { runAuthSuite } from "./auth.js";
import { runApplySuite } from "./apply.js";
import { runProtoSuite } from "./proto.js";
import { runEtcdSuite } from "./etcd.js";
import { runAdmissionSuite } from "./admission.js";
import { runWebhooksSuite } from "./webhooks.js";
import { runFlowControlSuite } from "./flowcontrol.js";
import { runCrdSuite } from "./crd.js";
import { runControllersSuite } from "./controllers.js";
import { runScaleSuite } from "./scale.js";
import { median, round } from "./lib/stats.js";

interface Settings {
  readonly quick: boolean;
  readonly workers: number;
  readonly h2: boolean;
  readonly profile: boolean;
  readonly profileDir?: string;
  readonly outDir: string;
  readonly firstStarts: number;
  readonly warmStarts: number;
  readonly idleWaitMs: number;
  readonly pollIntervalMs: number;
  readonly warmupMs: number;
  readonly phaseMs: number;
  readonly globalWarmupMs: number;
  readonly listSizes: readonly [number, number];
  readonly sqliteRoundMs: number;
  readonly sqliteRounds: number;
  readonly profileMs: number;
  readonly bodyBytes: number;
  /** How long to wait at the start for other processes on the machine to go quiet. */
  readonly quietWaitMs: number;
}

const TARGETS = {
  readyMs: 500,
  idleRssMB: 80,
  createsPerSecond: 3000,
  getsPerSecond: 5000,
} as const;

const KUBE = {
  readyMs: 3000,
  idleRssMB: 260,
  createsPerSecond: 1009,
  getsPerSecond: 1550,
} as const;

function parseSettings(argv: readonly string[]): Settings {
  const quick = argv.includes("--quick");
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index === -1 ? undefined : argv[index + 1];
  };
  const workers = Number(value("--workers") ?? "1");
  if (!Number.isInteger(workers) || workers < 1) throw new Error("--workers must be a positive integer");
  const profileDir = value("--profile-dir");
  const quietWaitS = Number(value("--quiet-wait") ?? (quick ? "0" : "60"));
  if (!Number.isFinite(quietWaitS) || quietWaitS < 0) throw new Error("--quiet-wait must be a number of seconds");
  return {
    quick,
    workers,
    h2: !argv.includes("--no-h2"),
    profile: !argv.includes("--no-profile"),
    ...(profileDir === undefined ? {} : { profileDir: resolve(profileDir) }),
    outDir: resolve(value("--out-dir") ?? join(REPO_ROOT, "bench", "results")),
    firstStarts: quick ? 1 : 3,
    warmStarts: quick ? 2 : 5,
    idleWaitMs: 2000,
    pollIntervalMs: 5,
    warmupMs: quick ? 500 : 1000,
    phaseMs: quick ? 1000 : 5000,
    globalWarmupMs: quick ? 500 : 1500,
    listSizes: quick ? [200, 1000] : [1000, 10000],
    sqliteRoundMs: quick ? 250 : 1000,
    sqliteRounds: quick ? 2 : 4,
    profileMs: quick ? 1000 : 3000,
    bodyBytes: 300,
    quietWaitMs: quietWaitS * 1000,
  };
}

const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const configMaps = (namespace: string): string => `/api/v1/namespaces/${namespace}/configmaps`;

function describePhase(phase: PhaseResult): string {
  const failures = phase.failures > 0 ? `, ${phase.failures} FAILED (${phase.firstError ?? "?"})` : "";
  return `  ${phase.name.padEnd(22)} ${String(round(phase.perSecond)).padStart(7)} req/s  p50 ${round(phase.latency.p50Ms)} ms  p99 ${round(phase.latency.p99Ms)} ms  server CPU ${phase.serverCpuPercent ?? "—"} %  generator CPU ${phase.generatorCpuPercent} %  other CPU ${phase.otherCpuPercent} %${failures}`;
}

// ---------------------------------------------------------------- startup

async function measureStartup(root: string, settings: Settings, gate: QuietGate): Promise<StartupResults> {
  log("startup: spawn → first /readyz 200");
  const first: number[] = [];
  const dataDir = join(root, "startup-0");
  for (let index = 0; index < settings.firstStarts; index++) {
    await gate.wait();
    const server = await startServerChild({ dataDir: join(root, `startup-${index}`), pollIntervalMs: settings.pollIntervalMs });
    first.push(round(server.readyMs));
    await server.stop();
    log(`  first start ${index + 1}: ${round(server.readyMs)} ms (CLI says ${server.reportedReadyMs() ?? "?"} ms)`);
  }
  const warm: number[] = [];
  const reported: (number | undefined)[] = [];
  let idle = { rssMB: Number.NaN, hwmMB: Number.NaN };
  for (let index = 0; index < settings.warmStarts; index++) {
    await gate.wait();
    const server = await startServerChild({ dataDir, pollIntervalMs: settings.pollIntervalMs });
    warm.push(round(server.readyMs));
    reported.push(server.reportedReadyMs());
    if (index === settings.warmStarts - 1) {
      await sleep(settings.idleWaitMs);
      idle = processMemory(server.pid);
    }
    await server.stop();
    log(`  warm start ${index + 1}: ${round(server.readyMs)} ms (CLI says ${server.reportedReadyMs() ?? "?"} ms)`);
  }
  log(`  idle RSS after ready + ${settings.idleWaitMs} ms: ${round(idle.rssMB)} MiB`);
  return {
    firstStartReadyMs: first,
    warmStartReadyMs: warm,
    firstStartReadyMsMedian: round(median(first)),
    warmStartReadyMsMedian: round(median(warm)),
    warmStartSelfReportedMs: reported,
    idleRssMB: round(idle.rssMB),
    idleHwmMB: round(idle.hwmMB),
    pollIntervalMs: settings.pollIntervalMs,
  };
}

// ---------------------------------------------------------------- server load

async function expectStatus(client: Client, method: string, path: string, body: string | undefined, statuses: readonly number[]): Promise<Buffer> {
  const reply = await client.request(method, path, body, true);
  if (!statuses.includes(reply.status)) throw new Error(`${method} ${path}: HTTP ${reply.status} ${String(reply.body ?? "").slice(0, 300)}`);
  return reply.body ?? Buffer.alloc(0);
}

/** Creates `count` ConfigMaps in namespace at concurrency c (untimed set-up). */
async function populate(client: Client, namespace: string, count: number, concurrency: number, bodyBytes: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const name = `item-${String(index).padStart(6, "0")}`;
        await expectStatus(client, "POST", configMaps(namespace), configMapBody(namespace, name, bodyBytes), [201, 409]);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface LoadResults {
  readonly phases: PhaseResult[];
  readonly memoryAfterLoad: { readonly rssMB: number; readonly hwmMB: number };
  readonly pkiDir: string;
}

async function measureLoad(root: string, settings: Settings, gate: QuietGate): Promise<LoadResults> {
  const dataDir = join(root, "load");
  const server = await startServerChild({ dataDir });
  try {
    const credentials = adminCredentials(dataDir);
    const target: Target = { host: server.host, port: server.port, credentials };
    const setup = h1Client(target, 16);
    const [smallList, largeList] = settings.listSizes;
    const listNamespace = (size: number): string => `bench-list-${size}`;
    for (const size of settings.listSizes) await expectStatus(setup, "POST", "/api/v1/namespaces", namespaceBody(listNamespace(size)), [201, 409]);
    await expectStatus(setup, "POST", configMaps("default"), configMapBody("default", "bench-get", settings.bodyBytes), [201, 409]);

    const protocols: Protocol[] = settings.h2 ? ["h1", "h2"] : ["h1"];
    const phases: PhaseResult[] = [];
    const phase = async (name: string, protocol: Protocol, concurrency: number, scenario: Scenario, record = true): Promise<PhaseResult> => {
      const spec: PhaseSpec = {
        name,
        protocol,
        target,
        concurrency,
        scenario,
        warmupMs: record ? settings.warmupMs : 0,
        durationMs: record ? settings.phaseMs : settings.globalWarmupMs,
        workers: settings.workers,
        serverPid: server.pid,
      };
      const result = record ? await gate.phase(spec) : await runPhase(spec);
      if (record) {
        phases.push(result);
        log(describePhase(result));
      }
      return result;
    };
    const create = (tag: string): Scenario => ({ kind: "create", namespace: "default", namePrefix: tag, bodyBytes: settings.bodyBytes, expectStatus: 201 });
    const get: Scenario = { kind: "get", path: `${configMaps("default")}/bench-get`, expectStatus: 200 };

    log(`load: server pid ${server.pid} on ${server.host}:${server.port}, generator: ${settings.workers} worker thread(s)`);
    for (const protocol of protocols) {
      await phase("warm-up create", protocol, 16, create(`warm-${protocol}`), false);
      await phase("warm-up get", protocol, 64, get, false);
    }
    for (const protocol of protocols) await phase(`create c=16`, protocol, 16, create(`create-${protocol}`));
    for (const protocol of protocols) await phase(`get c=64`, protocol, 64, get);
    for (const protocol of protocols) {
      await phase(`update c=16`, protocol, 16, {
        kind: "update",
        namespace: "default",
        namePrefix: `update-${protocol}`,
        bodyBytes: settings.bodyBytes,
        expectStatus: 200,
      });
    }
    for (const size of settings.listSizes) {
      const rate = await populate(setup, listNamespace(size), size, 16, settings.bodyBytes);
      const body = await expectStatus(setup, "GET", configMaps(listNamespace(size)), undefined, [200]);
      const items = asRecord(JSON.parse(String(body)) as unknown)?.["items"];
      // The namespace also holds the root CA ConfigMap its controller publishes (as kube's kube-root-ca.crt): not the bench's.
      const count = Array.isArray(items)
        ? items.filter((item) => !String(asRecord(asRecord(item)?.["metadata"])?.["name"]).endsWith("-root-ca.crt")).length
        : -1;
      if (count !== size) throw new Error(`list of ${listNamespace(size)} has ${count} items, expected ${size}`);
      log(`  populated ${listNamespace(size)}: ${size} ConfigMaps at ${round(rate)}/s, list body ${round(body.length / 1024)} KiB`);
    }
    for (const size of [smallList, largeList]) {
      for (const protocol of protocols) {
        await phase(`list ${size >= 1000 ? `${size / 1000}k` : size} c=4`, protocol, 4, {
          kind: "get",
          path: configMaps(listNamespace(size)),
          expectStatus: 200,
        });
      }
    }
    const memoryAfterLoad = processMemory(server.pid);
    log(`  server RSS after the load: ${round(memoryAfterLoad.rssMB)} MiB (peak ${round(memoryAfterLoad.hwmMB)} MiB)`);
    setup.close();
    return { phases, memoryAfterLoad: { rssMB: round(memoryAfterLoad.rssMB), hwmMB: round(memoryAfterLoad.hwmMB) }, pkiDir: join(dataDir, "pki") };
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------- limits

async function measureBare(mode: "https" | "h2", pkiDir: string, credentials: Credentials, settings: Settings, gate: QuietGate): Promise<PhaseResult> {
  const script = new URL("./bare-server.js", import.meta.url).pathname;
  const child = spawnNode([script, mode, join(pkiDir, "serving.crt"), join(pkiDir, "serving.key"), join(pkiDir, "ca.crt")]);
  try {
    const deadline = Date.now() + 10_000;
    let port: number | undefined;
    while (port === undefined) {
      const match = /listening (\d+)/.exec(child.output());
      if (match !== null) port = Number(match[1]);
      else if (Date.now() > deadline || child.child.exitCode !== null) throw new Error(`bare ${mode} server did not start: ${child.output()}`);
      else await sleep(5);
    }
    const protocol: Protocol = mode === "https" ? "h1" : "h2";
    const result = await gate.phase({
      name: mode === "https" ? "bare node:https c=64" : "bare node:http2 c=64",
      protocol,
      target: { host: "127.0.0.1", port, credentials },
      concurrency: 64,
      scenario: { kind: "get", path: "/", expectStatus: 200 },
      warmupMs: settings.warmupMs,
      durationMs: settings.phaseMs,
      workers: settings.workers,
      serverPid: child.pid,
    });
    log(describePhase(result));
    return result;
  } finally {
    await child.stop();
  }
}

async function measureLimits(root: string, pkiDir: string, settings: Settings, gate: QuietGate): Promise<LimitResults> {
  log("limits: bare TLS server with the same certificate, raw better-sqlite3");
  const credentials = adminCredentials(join(pkiDir, ".."));
  const bareHttpsH1 = await measureBare("https", pkiDir, credentials, settings, gate);
  const bareHttp2H2 = settings.h2 ? await measureBare("h2", pkiDir, credentials, settings, gate) : undefined;
  const sqliteDir = join(root, "sqlite");
  mkdirSync(sqliteDir);
  await gate.wait();
  const sqlite = measureSqlite(sqliteDir, settings.sqliteRoundMs, settings.sqliteRounds, settings.bodyBytes);
  log(
    `  raw sqlite: ${sqlite.singleInsertsPerSecond} single-insert tx/s (rounds ${sqlite.singleRounds.join(", ")}; commit p50 ${sqlite.singleCommitP50Ms} ms, p99 ${sqlite.singleCommitP99Ms} ms), ${sqlite.batched16InsertsPerSecond} inserts/s batched 16 (rounds ${sqlite.batched16Rounds.join(", ")})`,
  );
  return { bareHttpsH1, ...(bareHttp2H2 === undefined ? {} : { bareHttp2H2 }), sqlite };
}

// ---------------------------------------------------------------- profiles

async function profilePhase(
  root: string,
  name: string,
  protocol: Protocol,
  pkiDir: string,
  scenario: (namespace: string) => Scenario,
  concurrency: number,
  settings: Settings,
  gate: QuietGate,
): Promise<ProfiledPhase> {
  const dataDir = join(root, `profile-${name}`);
  const profileDir = join(root, `profile-${name}-cpu`);
  mkdirSync(profileDir, { recursive: true });
  // Reuse the certificates: the profile is about serving, not about key generation.
  cpSync(pkiDir, join(dataDir, "pki"), { recursive: true });
  const server = await startServerChild({ dataDir, nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profileDir] });
  let phase: PhaseResult;
  try {
    const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(dataDir) };
    const setup = h1Client(target, 1);
    await expectStatus(setup, "POST", configMaps("default"), configMapBody("default", "bench-get", settings.bodyBytes), [201, 409]);
    setup.close();
    phase = await gate.phase({
      name: `${name} (profiled)`,
      protocol,
      target,
      concurrency,
      scenario: scenario("default"),
      warmupMs: settings.warmupMs,
      durationMs: settings.profileMs,
      workers: settings.workers,
      serverPid: server.pid,
    });
    log(describePhase(phase));
  } finally {
    await server.stop();
  }
  const file = readdirSync(profileDir).find((entry) => entry.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error(`no .cpuprofile written for ${name}`);
  if (settings.profileDir !== undefined) {
    mkdirSync(settings.profileDir, { recursive: true });
    copyFileSync(join(profileDir, file), join(settings.profileDir, `${name}.cpuprofile`));
  }
  // Only the samples of the measured window: no start-up, no warm-up, no shutdown.
  const profile = analyseProfile(join(profileDir, file), REPO_ROOT, { fromUs: phase.windowUs.from, toUs: phase.windowUs.to });
  const top = profile.topSrcSelf.slice(0, 5).map((entry) => `${entry.function} ${entry.selfPercent}%`);
  log(`  top src/ self time: ${top.join(", ")}`);
  return { phase, profile };
}

// ---------------------------------------------------------------- assembly

function environment(settings: Settings): Record<string, string | number> {
  return { ...machineEnvironment(REPO_ROOT), "load generator": `${settings.workers} worker thread(s) in the bench process, same machine as the server` };
}

/** Phases during which other processes took CPU: their figures are understated. */
function busyPhaseNotes(phases: readonly PhaseResult[]): string[] {
  const busy = phases.filter((phase) => phase.otherCpuPercent >= QUIET_THRESHOLD_PERCENT);
  if (busy.length === 0) return [`No other process used ${QUIET_THRESHOLD_PERCENT} % of a core or more during any phase.`];
  return [
    `WARNING: other processes on the machine used CPU during ${busy.map((phase) => `${phase.name} ${phase.protocol} (${phase.otherCpuPercent} %)`).join(", ")}; those figures are understated.`,
  ];
}

/** Phases where the generator, not the server, was the limit. */
function generatorBoundNotes(phases: readonly PhaseResult[]): string[] {
  const bound = phases.filter((phase) => phase.generatorCpuPercent >= 90 && (phase.serverCpuPercent ?? 0) < 90);
  if (bound.length === 0) return [];
  return [
    `Generator-bound (generator ≥ 90 % of a core, server below 90 %): ${bound.map((phase) => `${phase.name} ${phase.protocol}`).join(", ")}. ` +
      "Their rates are floors of what the server could do; the per-CPU-second ratios compare request cost instead.",
  ];
}

function find(phases: readonly PhaseResult[], name: string, protocol: Protocol): PhaseResult | undefined {
  return phases.find((phase) => phase.name === name && phase.protocol === protocol);
}

async function runFoundation(settings: Settings): Promise<void> {
  const began = performance.now();
  const root = makeTempDir("orch-bench-");
  log(`orch-apiserver foundation benchmark (${settings.quick ? "quick" : "full"}), scratch dir ${root}`);
  const gate = new QuietGate(settings.quietWaitMs);
  const backgroundAtStart = await gate.wait();
  log(`other processes' CPU before the run: ${backgroundAtStart} % of a core`);
  const startup = await measureStartup(root, settings, gate);
  const load = await measureLoad(root, settings, gate);
  const limits = await measureLimits(root, load.pkiDir, settings, gate);
  let profiles: Record<string, ProfiledPhase> | undefined;
  if (settings.profile) {
    log("profiles: node --cpu-prof on a server child per phase");
    const create = (namespace: string): Scenario => ({ kind: "create", namespace, namePrefix: "prof", bodyBytes: settings.bodyBytes, expectStatus: 201 });
    const get = (namespace: string): Scenario => ({ kind: "get", path: `${configMaps(namespace)}/bench-get`, expectStatus: 200 });
    profiles = {
      "create c=16 (h1)": await profilePhase(root, "create-h1", "h1", load.pkiDir, create, 16, settings, gate),
      "get c=64 (h1)": await profilePhase(root, "get-h1", "h1", load.pkiDir, get, 64, settings, gate),
    };
    if (settings.h2) profiles["get c=64 (h2)"] = await profilePhase(root, "get-h2", "h2", load.pkiDir, get, 64, settings, gate);
  }

  const phases = load.phases;
  const createH1 = find(phases, "create c=16", "h1");
  const createH2 = find(phases, "create c=16", "h2");
  const getH1 = find(phases, "get c=64", "h1");
  const getH2 = find(phases, "get c=64", "h2");
  const updateH1 = find(phases, "update c=16", "h1");
  const headline = [
    headlineRow(
      "Ready, first start (certificate generation)",
      startup.firstStartReadyMsMedian,
      "ms",
      { value: TARGETS.readyMs, direction: "max" },
      KUBE.readyMs,
    ),
    headlineRow(
      `Ready, warm start (median of ${startup.warmStartReadyMs.length})`,
      startup.warmStartReadyMsMedian,
      "ms",
      { value: TARGETS.readyMs, direction: "max" },
      KUBE.readyMs,
    ),
    headlineRow("Idle RSS (ready + 2 s)", startup.idleRssMB, "MiB", { value: TARGETS.idleRssMB, direction: "max" }, KUBE.idleRssMB),
  ];
  const rate = (label: string, phase: PhaseResult | undefined, target?: number, kube?: number): void => {
    if (phase === undefined) return;
    headline.push(
      headlineRow(`${label} (${phase.protocol})`, phase.perSecond, "req/s", target === undefined ? undefined : { value: target, direction: "min" }, kube),
    );
  };
  const latency = (label: string, phase: PhaseResult | undefined): void => {
    if (phase === undefined) return;
    headline.push(headlineRow(`${label} p50 (${phase.protocol})`, phase.latency.p50Ms, "ms"));
    headline.push(headlineRow(`${label} p99 (${phase.protocol})`, phase.latency.p99Ms, "ms"));
  };
  rate("Durable creates/s, c=16", createH1, TARGETS.createsPerSecond, KUBE.createsPerSecond);
  rate("Durable creates/s, c=16", createH2, TARGETS.createsPerSecond, KUBE.createsPerSecond);
  rate("GETs/s, c=64", getH1, TARGETS.getsPerSecond, KUBE.getsPerSecond);
  rate("GETs/s, c=64", getH2, TARGETS.getsPerSecond, KUBE.getsPerSecond);
  latency("Create", createH1);
  latency("Create", createH2);
  latency("GET", getH1);
  latency("GET", getH2);
  for (const protocol of ["h1", "h2"] as const) {
    const update = find(phases, "update c=16", protocol);
    rate("Updates/s, c=16", update);
    latency("Update", update);
  }
  for (const phase of phases.filter((candidate) => candidate.name.startsWith("list "))) {
    headline.push(headlineRow(`LISTs/s, ${phase.name.replace("list ", "").replace(" c=4", "")} items, c=4 (${phase.protocol})`, phase.perSecond, "lists/s"));
    headline.push(
      headlineRow(
        `LIST ${phase.name.replace("list ", "").replace(" c=4", "")} p50 / p99 (${phase.protocol})`,
        phase.latency.p50Ms,
        `ms / ${round(phase.latency.p99Ms)} ms`,
      ),
    );
  }
  headline.push(headlineRow("Server RSS after the load", load.memoryAfterLoad.rssMB, "MiB"));

  const ratios: RatioRow[] = [];
  const ratio = (label: string, numerator: number | undefined, denominator: number | undefined): void => {
    if (numerator === undefined || denominator === undefined) return;
    ratios.push({ ratio: label, numerator, denominator, value: round(numerator / denominator) });
  };
  ratio("server GET rate (h1, c=64) / bare node:https rate (h1, c=64)", getH1?.perSecond, limits.bareHttpsH1.perSecond);
  ratio("server GET rate (h2, c=64) / bare node:http2 rate (h2, c=64)", getH2?.perSecond, limits.bareHttp2H2?.perSecond);
  // The bare servers saturate the generator long before themselves; requests per CPU-second of
  // the serving process compare what a request costs instead.
  const perCpuSecond = (phase: PhaseResult | undefined): number | undefined =>
    phase?.serverCpuPercent === undefined || phase.serverCpuPercent <= 0 ? undefined : round(phase.perSecond / (phase.serverCpuPercent / 100));
  ratio("server GETs per server CPU-second (h1) / bare node:https requests per CPU-second", perCpuSecond(getH1), perCpuSecond(limits.bareHttpsH1));
  ratio("server GETs per server CPU-second (h2) / bare node:http2 requests per CPU-second", perCpuSecond(getH2), perCpuSecond(limits.bareHttp2H2));
  ratio("server create rate (h1, c=16) / raw sqlite single-insert tx rate", createH1?.perSecond, limits.sqlite.singleInsertsPerSecond);
  ratio("server create rate (h1, c=16) / raw sqlite batched-16 insert rate", createH1?.perSecond, limits.sqlite.batched16InsertsPerSecond);
  ratio("server create rate (h2, c=16) / raw sqlite batched-16 insert rate", createH2?.perSecond, limits.sqlite.batched16InsertsPerSecond);
  ratio("server update rate (h1, c=16) / server create rate (h1, c=16)", updateH1?.perSecond, createH1?.perSecond);

  const date = new Date().toISOString().slice(0, 10);
  const results: BenchResults = {
    name: "foundation",
    date,
    mode: settings.quick ? "quick" : "full",
    environment: {
      ...environment(settings),
      "other processes' CPU at start (% of a core)": backgroundAtStart,
      "waited for quiet (s)": gate.summary().waitedS,
      "phases repeated because other processes took CPU": gate.summary().repeatedPhases.join(", ") || "none",
    },
    settings: {
      phaseSeconds: settings.phaseMs / 1000,
      warmupSeconds: settings.warmupMs / 1000,
      bodyBytes: settings.bodyBytes,
      workers: settings.workers,
      http2: settings.h2,
      firstStarts: settings.firstStarts,
      warmStarts: settings.warmStarts,
      listSmall: settings.listSizes[0],
      listLarge: settings.listSizes[1],
      storageBackend: "sqlite",
    },
    targets: {
      ready: `< ${TARGETS.readyMs} ms`,
      idleRss: `≤ ${TARGETS.idleRssMB} MB`,
      creates: `≥ ${TARGETS.createsPerSecond} durable creates/s at c=16`,
      gets: `≥ ${TARGETS.getsPerSecond} GETs/s at c=64`,
    },
    kubeReference: {
      system: "kube-apiserver 1.28 + etcd, same conditions",
      readyMs: KUBE.readyMs,
      idleRssMB: KUBE.idleRssMB,
      createsPerSecondC16: KUBE.createsPerSecond,
      getsPerSecondC64: KUBE.getsPerSecond,
    },
    headline,
    ratios,
    startup,
    phases,
    memoryAfterLoad: load.memoryAfterLoad,
    limits,
    ...(profiles === undefined ? {} : { profiles }),
    notes: [
      ...busyPhaseNotes([...phases, limits.bareHttpsH1, ...(limits.bareHttp2H2 === undefined ? [] : [limits.bareHttp2H2])]),
      ...generatorBoundNotes([...phases, limits.bareHttpsH1, ...(limits.bareHttp2H2 === undefined ? [] : [limits.bareHttp2H2])]),
      "Server and load generator share the machine's 2 cores; each phase records the server's and the generator's CPU (100 % = one core), so a generator-bound phase shows as generator CPU near 100 %.",
      "h1: node:https with a keep-alive Agent, maxSockets = concurrency. h2: node:http2, one session with all requests multiplexed (as client-go), 4 MiB stream window.",
      "Creates are durable: the server runs the sqlite backend (WAL, synchronous=FULL, group commit); a 201 is sent only after COMMIT.",
      "Ready = spawn of `node bin/orch-apiserver.js` until the first /readyz 200 (polled every 5 ms over a keep-alive agent), so it includes node's own boot.",
      "Raw sqlite limit: a two-column table (key TEXT PRIMARY KEY, value TEXT); the server writes two tables (kv log + latest index) per write.",
      "The bare limits answer a fixed ~300-byte JSON with the server's own certificate, key and client-certificate request; the server's listener is node:http2 with allowHTTP1.",
      "Profiles come from separate server runs under `node --cpu-prof` (rates under the profiler are a little lower); total % includes callees.",
      "MB in the targets is read as MiB (/proc VmRSS).",
    ],
    totalBenchSeconds: round((performance.now() - began) / 1000),
  };

  mkdirSync(settings.outDir, { recursive: true });
  const base = join(settings.outDir, `${date}-foundation${settings.quick ? "-quick" : ""}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${base}.md`, renderMarkdown(results));
  log("");
  log(headlineTable(results.headline));
  log("");
  log(ratioTable(results.ratios));
  log("");
  log(phaseTable([...phases, limits.bareHttpsH1, ...(limits.bareHttp2H2 === undefined ? [] : [limits.bareHttp2H2])]));
  log("");
  log(`wrote ${base}.json and ${base}.md (${results.totalBenchSeconds} s)`);
}

type Suite =
  | "foundation"
  | "watch"
  | "watch-tail"
  | "rbac"
  | "apply"
  | "auth"
  | "proto"
  | "admission"
  | "webhooks"
  | "audit"
  | "flowcontrol"
  | "crd"
  | "etcd"
  | "controllers"
  | "scale"
  | "all";

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const index = argv.indexOf("--suite");
  const suite = index === -1 ? "all" : argv[index + 1];
  if (
    suite !== "foundation" &&
    suite !== "watch" &&
    suite !== "watch-tail" &&
    suite !== "rbac" &&
    suite !== "apply" &&
    suite !== "auth" &&
    suite !== "proto" &&
    suite !== "admission" &&
    suite !== "webhooks" &&
    suite !== "audit" &&
    suite !== "flowcontrol" &&
    suite !== "crd" &&
    suite !== "etcd" &&
    suite !== "controllers" &&
    suite !== "scale" &&
    suite !== "all"
  )
    throw new Error(
      "--suite must be foundation, watch, watch-tail, rbac, apply, auth, proto, admission, webhooks, audit, flowcontrol, crd, etcd, controllers, scale or all",
    );
  const chosen: Suite = suite;
  const settings = parseSettings(argv);
  installCleanup();
  if (chosen === "foundation" || chosen === "all") await runFoundation(settings);
  if (chosen === "watch" || chosen === "all") {
    await runWatchSuite({
      quick: settings.quick,
      outDir: settings.outDir,
      profile: settings.profile,
      ...(settings.profileDir === undefined ? {} : { profileDir: settings.profileDir }),
      quietWaitMs: settings.quietWaitMs,
      watchWorkers: watchWorkers(argv),
      h2: settings.h2,
      heapSnapshot: !argv.includes("--no-heap-snapshot"),
    });
  }
  // Part of the watch suite's figures, alone: not in "all".
  if (chosen === "watch-tail") {
    await runWatchTailSuite({
      quick: settings.quick,
      outDir: settings.outDir,
      profile: settings.profile,
      ...(settings.profileDir === undefined ? {} : { profileDir: settings.profileDir }),
      quietWaitMs: settings.quietWaitMs,
      watchWorkers: watchWorkers(argv),
      h2: settings.h2,
      heapSnapshot: false,
    });
  }
  if (chosen === "auth" || chosen === "all") {
    await runAuthSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs, workers: settings.workers, h2: settings.h2 });
  }
  if (chosen === "admission" || chosen === "all") {
    await runAdmissionSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs });
  }
  if (chosen === "webhooks" || chosen === "all") {
    await runWebhooksSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs });
  }
  if (chosen === "flowcontrol" || chosen === "all") {
    await runFlowControlSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs });
  }
  if (chosen === "rbac" || chosen === "all") {
    await runRbacSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs, workers: settings.workers, h2: settings.h2 });
  }
  if (chosen === "apply" || chosen === "all") await runApplySuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs });
  if (chosen === "audit" || chosen === "all") {
    await runAuditSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs, workers: settings.workers });
  }
  if (chosen === "proto" || chosen === "all") await runProtoSuite({ quick: settings.quick, outDir: settings.outDir });
  if (chosen === "etcd" || chosen === "all") await runEtcdSuite({ quick: settings.quick, outDir: settings.outDir });
  if (chosen === "crd" || chosen === "all") {
    const flag = (name: string, fallback: number): number => {
      const at = argv.indexOf(name);
      const value = Number(at === -1 ? fallback : argv[at + 1]);
      if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
      return value;
    };
    const storageAt = argv.indexOf("--crd-storage");
    const storage = storageAt === -1 ? "sqlite" : argv[storageAt + 1];
    if (storage !== "sqlite" && storage !== "memory") throw new Error("--crd-storage must be sqlite or memory");
    await runCrdSuite({ quick: settings.quick, outDir: settings.outDir, count: flag("--crd-count", 2000), kilobytes: flag("--crd-kb", 300), storage });
  }
  if (chosen === "controllers" || chosen === "all") {
    await runControllersSuite({ quick: settings.quick, outDir: settings.outDir, quietWaitMs: settings.quietWaitMs });
  }
  if (chosen === "scale" || chosen === "all")
    await runScaleSuite({
      quick: settings.quick,
      outDir: settings.outDir,
      objects: scaleObjects(argv),
      largeOnly: argv.includes("--scale-large-only"),
      startOnly: argv.includes("--scale-start"),
      listsOnly: argv.includes("--scale-lists"),
    });
}

function scaleObjects(argv: readonly string[]): number {
  const index = argv.indexOf("--scale-objects");
  const objects = Number(index === -1 ? "100000" : argv[index + 1]);
  if (!Number.isInteger(objects) || objects < 1) throw new Error("--scale-objects must be a positive integer");
  return objects;
}

function watchWorkers(argv: readonly string[]): number {
  const index = argv.indexOf("--watch-workers");
  const workers = Number(index === -1 ? "4" : argv[index + 1]);
  if (!Number.isInteger(workers) || workers < 1) throw new Error("--watch-workers must be a positive integer");
  return workers;
}

main().then(
  () => {
    cleanup();
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    cleanup();
    process.exit(1);
  },
);
