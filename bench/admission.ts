/**
 * Admission suite: the server CPU of a Pod create with the default admission chain vs with every
 * named plugin turned off (`--disable-admission-plugins`), measured two ways:
 * - in process (no sockets, so this process's CPU is the server's plus a thin client's);
 * - over the real path: a server process (SQLite, HTTP/2 over TLS) whose own CPU (/proc) is read
 *   while this process sends the creates — "a pod create's server CPU" as the issue states it.
 * Both are taken once the server is warm (V8 has compiled the create path: a fresh process spends
 * its first thousand creates mostly compiling, more so with more code on the path); the server
 * process's first 1,000 creates after start are reported apart ("cold"). A third configuration
 * posts the pod as the chain stores it with every plugin off, and an in-process sequential run
 * reads the chain's own per-plugin latency metrics: together they split the difference into the
 * chain's own work and the cost of the bigger object downstream.
 * Target: the chain costs ≤ 15 % of a create.
 *
 *   npm run bench -- --suite admission   writes bench/results/<date>-admission.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinPlugins } from "../src/admission/plugins/index.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { type BurstClient, burstClient, namedBodies } from "./lib/burst.js";
import { h2Client } from "./lib/client.js";
import {
  describeSpread,
  mapSpread,
  mergePaired,
  type PairedOptions,
  type PairedResult,
  pairedJson,
  pairedTables,
  perRound,
  processCpuNanos,
  runPaired,
  verdict,
} from "./lib/paired.js";
import { closeServers, type ServerSpec, serverVariants, startPairedServers } from "./lib/paired-servers.js";
import { backgroundCpuPercent, installCleanup } from "./lib/processes.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { QUIET_THRESHOLD_PERCENT } from "./lib/quiet.js";
import { median, round } from "./lib/stats.js";

export interface AdmissionSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

const TARGET_PERCENT = 15;

type Json = Record<string, unknown>;

/** The pod every run creates, as a client sends it. */
function basePod(name: string): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "bench" } },
    spec: { containers: [{ name: "c", image: "busybox:1.36", resources: { requests: { cpu: "10m", memory: "16Mi" } } }] },
  };
}

/**
 * The pod as the default chain stores it (service account, token volume, tolerations, priority…),
 * so a run without plugins can store the same object: the difference is then the chain's own work,
 * not the cost of a bigger object through the rest of the pipeline.
 */
async function admittedSpec(): Promise<Json> {
  const server = await inProcessServer();
  try {
    await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } } });
    await server.call("POST", "/api/v1/namespaces/bench/serviceaccounts", {
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } },
    });
    const created = await server.call("POST", "/api/v1/namespaces/bench/pods", { body: basePod("probe") });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
    return created.json["spec"] as Json;
  } finally {
    await server.stop();
  }
}

/** Creates the `bench` namespace and its `default` ServiceAccount (the controller may have made it: a 409 is fine). */
async function benchNamespace(call: (path: string, body: Json) => Promise<unknown>): Promise<void> {
  await call("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
  await call("/api/v1/namespaces/bench/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } });
}

/** In-process warm-up creates per server (this process's code is compiled by the first round's). */
const IN_PROCESS_WARMUP = 300;

/**
 * CPU microseconds per Pod create over `count` creates, in batches of 10 concurrent. The client is
 * thin (a prepared body, the reply read as it comes, not parsed), so the figure is the server's.
 */
async function cpuPerCreate(disable: readonly string[], count: number, round_: number, spec?: Json): Promise<number> {
  const server = await inProcessServer({ admission: { disable } });
  try {
    await benchNamespace((path, body) => server.call("POST", path, { body }));
    const pod = (name: string): string => JSON.stringify(spec === undefined ? basePod(name) : { ...basePod(name), spec });
    const create = async (name: string): Promise<void> => {
      const reply = await server.raw("POST", "/api/v1/namespaces/bench/pods", { body: pod(name) });
      if (reply.status !== 201) throw new Error(`create failed: ${reply.status}`);
    };
    const batches = async (prefix: string, total: number): Promise<void> => {
      for (let index = 0; index < total; index += 10) {
        await Promise.all(Array.from({ length: Math.min(10, total - index) }, (_, offset) => create(`${prefix}-${round_}-${index + offset}`)));
      }
    };
    await batches("warm", IN_PROCESS_WARMUP);
    const start = process.cpuUsage();
    await batches("p", count);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  } finally {
    await server.stop();
  }
}

/** One plugin's (or step's) mean latency per pod create, from the server's admission metrics. */
export interface PluginLatency {
  readonly name: string;
  readonly type: string;
  readonly micros: number;
}

/** `<metric>_{sum,count}` per (name, type) for CREATE, from Prometheus text. */
function admissionSums(text: string): Map<string, { sum: number; count: number }> {
  const sums = new Map<string, { sum: number; count: number }>();
  const pattern = /^apiserver_admission_(controller|step)_admission_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/;
  for (const line of text.split("\n")) {
    const match = pattern.exec(line);
    if (match === null || !(match[3] ?? "").includes('operation="CREATE"')) continue;
    const labels = match[3] ?? "";
    const name = /name="([^"]*)"/.exec(labels)?.[1] ?? "(whole step)";
    const type = /type="([^"]*)"/.exec(labels)?.[1] ?? "";
    const id = `${name}\t${type}`;
    const entry = sums.get(id) ?? { sum: 0, count: 0 };
    if (match[2] === "sum") entry.sum += Number(match[4]);
    else entry.count += Number(match[4]);
    sums.set(id, entry);
  }
  return sums;
}

/**
 * The chain's own work per plugin: `count` pod creates one at a time in process, each after the
 * previous one's follow-up work (the watch cache, informers) has run, so a plugin's latency is its
 * own CPU rather than other work interleaved at its awaits; the server's admission latency metrics
 * are read before and after. On a loaded machine preemption inflates these.
 */
async function pluginLatencies(count: number): Promise<PluginLatency[]> {
  const server = await inProcessServer();
  try {
    await benchNamespace((path, body) => server.call("POST", path, { body }));
    const create = async (name: string): Promise<void> => {
      const reply = await server.raw("POST", "/api/v1/namespaces/bench/pods", { body: JSON.stringify(basePod(name)) });
      if (reply.status !== 201) throw new Error(`create failed: ${reply.status}`);
    };
    for (let index = 0; index < IN_PROCESS_WARMUP; index++) await create(`warm-${index}`);
    const before = admissionSums((await server.call("GET", "/metrics")).text);
    const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));
    for (let index = 0; index < count; index++) {
      await settle();
      await create(`p-${index}`);
    }
    const after = admissionSums((await server.call("GET", "/metrics")).text);
    const rows: PluginLatency[] = [];
    for (const [id, entry] of after) {
      const earlier = before.get(id) ?? { sum: 0, count: 0 };
      const calls = entry.count - earlier.count;
      if (calls < count) continue; // not on the pod path (other kinds' creates)
      const [name = "", type = ""] = id.split("\t");
      rows.push({ name, type, micros: round(((entry.sum - earlier.sum) * 1e6) / calls) });
    }
    return rows.sort((a, b) => b.micros - a.micros);
  } finally {
    await server.stop();
  }
}

/** Rounds, warm-up creates per server, burst length (bursts sized from the warm-up's rate, at most opsPerBurst creates). */
const PLAN = { opsPerBurst: 1000, rounds: 30, warmOps: 2000, burstSeconds: 0.4, minOpsPerBurst: 150 };
const QUICK_PLAN = { opsPerBurst: 200, rounds: 6, warmOps: 200, burstSeconds: 0.2 };
/** Sets of server processes, each measured for a sixth of the rounds (see `startPairedServers`' rotate; why six: bench/README.md, "Paired runs"). */
const GENERATIONS = 12;
/** Each server's first creates after start, measured apart ("cold"; after 50 that open the path). */
const COLD = 1000;
const QUICK_COLD = 200;

const VARIANTS = { off: "every named plugin off", on: "default chain", offSame: "every named plugin off, posting the pod as the chain stores it" };

interface ServerFigures {
  readonly paired: PairedResult;
  /** Server CPU µs per create over each server's first creates, by variant name (mean over the generations). */
  readonly cold: Readonly<Record<string, number>>;
  /** Sets of server processes measured one after another, their rounds pooled. */
  readonly generations: number;
}

/**
 * The real path: three server processes started together (plugins off, the baseline; the default
 * chain; plugins off with the pod posted as the chain stores it), each creating pods over HTTP/2 +
 * TLS 10 at a time; the first creates after start measured apart (cold), then paired bursts.
 */
async function serverProcesses(everything: readonly string[], admitted: Json, quick: boolean): Promise<ServerFigures> {
  const plan = quick ? QUICK_PLAN : PLAN;
  const generations = quick ? 1 : GENERATIONS;
  const perGeneration = { ...plan, rounds: Math.ceil(plan.rounds / generations) };
  const disable = ["--disable-admission-plugins", everything.join(",")];
  const specs = [
    { name: VARIANTS.off, extraArgs: disable },
    { name: VARIANTS.on, extraArgs: [] },
    { name: VARIANTS.offSame, extraArgs: disable },
  ];
  const results: PairedResult[] = [];
  const coldRuns: Record<string, number>[] = [];
  // Fresh server processes per generation (started in a turned order), their rounds pooled.
  for (let generation = 0; generation < generations; generation++) {
    const generationResult = await serverGeneration(specs, admitted, perGeneration, quick ? QUICK_COLD : COLD, generation);
    results.push(generationResult.paired);
    coldRuns.push(generationResult.cold);
  }
  const cold: Record<string, number> = {};
  for (const { name } of specs) cold[name] = coldRuns.reduce((sum, run) => sum + (run[name] ?? 0), 0) / coldRuns.length;
  return { paired: mergePaired(results), cold, generations };
}

/** One generation: the three servers started (in an order turned by `generation`), set up, measured cold, then paired bursts. */
async function serverGeneration(
  specs: readonly ServerSpec[],
  admitted: Json,
  plan: PairedOptions,
  cold: number,
  generation: number,
): Promise<{ paired: PairedResult; cold: Record<string, number> }> {
  const started = await startPairedServers("orch-bench-admission-", specs, generation);
  const clients: BurstClient[] = [];
  try {
    for (const [index, { target }] of started.servers.entries()) {
      const setup = await h2Client(target);
      try {
        await benchNamespace((path, body) => setup.request("POST", path, JSON.stringify(body)));
      } finally {
        setup.close();
      }
      const template = index === 2 ? { ...basePod("$NAME"), spec: admitted } : basePod("$NAME");
      clients.push(
        await burstClient(target, { method: "POST", path: "/api/v1/namespaces/bench/pods", body: namedBodies(template, "p"), expectStatus: 201 }, 10),
      );
    }
    const coldMicros: Record<string, number> = {};
    for (const [index, { name, server }] of started.servers.entries()) {
      const client = clients[index] as BurstClient;
      await client.burst(50);
      const before = processCpuNanos(server.pid);
      await client.burst(cold);
      coldMicros[name] = (processCpuNanos(server.pid) - before) / 1000 / cold;
    }
    const paired = await runPaired(serverVariants(started, clients), plan);
    return { paired, cold: coldMicros };
  } finally {
    await closeServers(started, clients);
  }
}

export async function runAdmissionSuite(options: AdmissionSuiteOptions): Promise<void> {
  // What other processes used (% of a core) as each phase started: the figures' load.
  const background: number[] = [round(await backgroundCpuPercent(400))];
  const count = options.quick ? 200 : 1000;
  const rounds = options.quick ? 1 : 5;
  const everything = builtinPlugins().map((plugin) => plugin.name);
  const admitted = await admittedSpec();
  const on: number[] = [];
  const off: number[] = [];
  const offSame: number[] = [];
  for (let index = 0; index < rounds; index++) {
    // Interleave so drift (other processes, thermal) hits every configuration alike.
    on.push(await cpuPerCreate([], count, index * 3));
    off.push(await cpuPerCreate(everything, count, index * 3 + 1));
    offSame.push(await cpuPerCreate(everything, count, index * 3 + 2, admitted));
  }
  const plugins = await pluginLatencies(count);
  installCleanup();
  process.stdout.write("admission: three server processes, paired bursts of pod creates\n");
  const figures = await serverProcesses(everything, admitted, options.quick);
  const paired = figures.paired;
  const share = (withChain: number, without: number): number => ((withChain - without) / withChain) * 100;
  // Per round: the chain's share of the default chain's CPU per create, against plugins off and against the same object.
  const chainShare = perRound(paired, VARIANTS.on, VARIANTS.off, (on, off) => share(on.cpuMicrosPerOp, off.cpuMicrosPerOp));
  const ownShare = perRound(paired, VARIANTS.on, VARIANTS.offSame, (on, same) => share(on.cpuMicrosPerOp, same.cpuMicrosPerOp));
  const coldShare = share(figures.cold[VARIANTS.on] ?? Number.NaN, figures.cold[VARIANTS.off] ?? Number.NaN);
  const inProcess = { on: median(on), off: median(off), offSame: median(offSame) };
  const inProcessShare = share(inProcess.on, inProcess.off);
  const chainMicros = plugins.filter((row) => row.name === "(whole step)").reduce((total, row) => total + row.micros, 0);
  const rounded = (runs: readonly number[]): number[] => runs.map((value) => round(value));
  const results = {
    suite: "admission",
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
    otherProcessesCpuPercent: background,
    targetPercent: TARGET_PERCENT,
    serverProcess: {
      transport: "HTTP/2 over TLS, SQLite store, server CPU from /proc/<pid>/task/*/schedstat; paired bursts (bench/lib/paired.ts)",
      chainSharePercent: mapSpread(chainShare, (x) => x),
      chainOwnWorkSharePercent: mapSpread(ownShare, (x) => x),
      verdict: verdict(chainShare, TARGET_PERCENT),
      paired: pairedJson(paired),
      cold: {
        creates: options.quick ? QUICK_COLD : COLD,
        cpuMicrosPerCreate: Object.fromEntries(Object.entries(figures.cold).map(([name, value]) => [name, round(value)])),
        chainSharePercent: round(coldShare),
      },
    },
    inProcess: {
      createsPerRound: count,
      rounds,
      cpuMicrosPerCreate: {
        defaultChain: round(inProcess.on),
        pluginsOff: round(inProcess.off),
        pluginsOffSameObject: round(inProcess.offSame),
        rounds: { defaultChain: rounded(on), pluginsOff: rounded(off), pluginsOffSameObject: rounded(offSame) },
      },
      chainSharePercent: round(inProcessShare),
      chainOwnWorkSharePercent: round(share(inProcess.on, inProcess.offSame)),
    },
    perPlugin: { micros: plugins, chainMicros: round(chainMicros) },
  };
  mkdirSync(options.outDir, { recursive: true });
  const stem = `${new Date().toISOString().slice(0, 10)}-admission${options.quick ? "-quick" : ""}`;
  writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = [
    "# Admission chain cost",
    "",
    `Other processes used ${background.join(", ")} % of a core as the phases started${Math.max(...background) >= QUIET_THRESHOLD_PERCENT ? " — taken under load: CPU per create is inflated and noisy, rerun on a quiet machine" : " (quiet)"}.`,
    "",
    `## The server processes (SQLite, HTTP/2 over TLS), paired bursts — the target's measure`,
    "",
    `Three server processes started together, each given ${options.quick ? QUICK_COLD : COLD} creates after start (cold, below), then ${paired.warmOps} more, then rounds of one ${paired.opsPerBurst}-create burst per server (10 at a time), the order reversed every round; ${figures.generations} generations of such processes one after another (each started in a turned order), ${paired.rounds} rounds in all, pooled (identical processes differ by a few percent for as long as they live) (\`bench/lib/paired.ts\`); server CPU from /proc/<pid>/task/*/schedstat. Other processes used ${paired.otherCpuPercent} % of a core during the ${paired.seconds} s of rounds.`,
    "",
    ...pairedTables(paired, "create"),
    "",
    `The chain's share of a create's server CPU (default chain vs every plugin off, per round; the issue's measure): **${describeSpread(chainShare, " %")}** — target ≤ ${TARGET_PERCENT} %: ${verdict(chainShare, TARGET_PERCENT)}.`,
    `Against the same object posted with the plugins off (the chain's own work, without the bigger object's cost downstream): ${describeSpread(ownShare, " %")}.`,
    "",
    `Cold (each server's first ${options.quick ? QUICK_COLD : COLD} creates after start, server CPU µs per create): default chain ${round(figures.cold[VARIANTS.on] ?? Number.NaN)}, plugins off ${round(figures.cold[VARIANTS.off] ?? Number.NaN)}, same object ${round(figures.cold[VARIANTS.offSame] ?? Number.NaN)} — the chain's share ${round(coldShare)} %.`,
    "",
    "Cold, a fresh process spends most of its CPU compiling the create path (more code with the chain on), which is why",
    "the warm window is the measure; a long-running server is warm after its first few thousand writes.",
    "",
    `## In process (memory store, no sockets, ${count} creates per round, ${rounds} rounds, medians)`,
    "",
    "| chain | CPU µs / create |",
    "|---|---|",
    `| default chain | ${round(inProcess.on)} |`,
    `| every named plugin off | ${round(inProcess.off)} |`,
    `| every named plugin off, posting the pod as the chain stores it | ${round(inProcess.offSame)} |`,
    "",
    `Share: **${round(inProcessShare)} %**. The client is thin here (prepared bodies, replies not parsed) but its CPU is in`,
    "these figures, equal in every row; without a store's or a socket's work the rest of a create is small, so the",
    "same absolute difference is a larger share than over the real path.",
    "",
    "The third rows post every admitted field (token volume, tolerations, priority) as the client's, so decoding,",
    "defaulting and managedFields cover them too: they bound what the bigger object costs downstream (validation,",
    "storage, the watch cache, the response), not the chain's own work.",
    "",
    `## The chain's own work per plugin (in process, ${count} creates one at a time on a settled server, admission latency metrics, mean µs per create)`,
    "",
    "| plugin | phase | µs |",
    "|---|---|---|",
    ...plugins.map((row) => `| ${row.name} | ${row.type} | ${row.micros} |`),
    "",
    `Both steps together: ${round(chainMicros)} µs per create. Wall time of each plugin's call with nothing else to run: its own CPU on a quiet`,
    "machine, plus the garbage collections that happen to fall in it; under load preemption inflates every row.",
    "",
  ].join("\n");
  writeFileSync(join(options.outDir, `${stem}.md`), markdown);
  process.stdout.write(markdown);
}
