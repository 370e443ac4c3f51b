/**
 * Flow-control suite:
 *  1. GETs/s at c=64 of one ConfigMap by a non-exempt user (a static token; global-default level)
 *     with API Priority and Fairness on vs `--enable-priority-and-fairness=false`, two server
 *     processes started together and measured in alternating short bursts (`lib/paired.ts`: per
 *     pair, the rate and CPU per GET against the other's; medians and spread). Target: ≤ 10 % cost.
 *     The same in process too (no sockets; this process's CPU is the server's), alternating rounds.
 *  2. Flood (in process): a second user's sequential GET latency (p99) while a first user keeps 10× its
 *     level's seats busy, against the second user's p99 with no flood. Target: ≤ 5×.
 *
 *   npm run bench -- --suite flowcontrol   writes bench/results/<date>-flowcontrol.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { inProcessServer } from "../src/testing/in-process.js";
import { burstClient, type BurstClient } from "./lib/burst.js";
import { machineEnvironment } from "./lib/environment.js";
import {
  describeSpread,
  mapSpread,
  mergePaired,
  NO_SPREAD,
  type PairedOptions,
  pairedJson,
  pairedTables,
  type PairedResult,
  runPaired,
  spread,
  verdict,
} from "./lib/paired.js";
import { closeServers, type ServerSpec, serverVariants, startPairedServers } from "./lib/paired-servers.js";
import { makeTempDir } from "./lib/processes.js";
import { REPO_ROOT } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

export interface FlowControlSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

const COST_TARGET_PERCENT = 10;
const FLOOD_TARGET_RATIO = 5;
const FC = "/apis/flowcontrol.apiserver.orch.io/v1";
const CONFIGMAP = "/api/v1/namespaces/bench/configmaps/cm";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

/** A namespace with one ConfigMap that alice and bob may read. */
async function prepare(server: Server): Promise<void> {
  const must = async (method: string, path: string, body: unknown) => {
    const response = await server.call(method, path, { body });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
  };
  await must("POST", "/api/v1/namespaces", { metadata: { name: "bench" } });
  await must("POST", "/api/v1/namespaces/bench/configmaps", { metadata: { name: "cm" }, data: { key: "value" } });
  const rbac = "/apis/rbac.authorization.orch.io/v1";
  await must("POST", `${rbac}/clusterroles`, { metadata: { name: "bench-reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] });
  await must("POST", `${rbac}/clusterrolebindings`, {
    metadata: { name: "bench-reader" },
    roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "bench-reader" },
    subjects: [
      { kind: "User", name: "alice", apiGroup: "rbac.authorization.orch.io" },
      { kind: "User", name: "bob", apiGroup: "rbac.authorization.orch.io" },
    ],
  });
  // The authorizer follows the watch cache: wait until alice can read.
  for (let attempt = 0; (await server.call("GET", CONFIGMAP, { as: "alice" })).status !== 200; attempt++) {
    if (attempt > 500) throw new Error("alice never got read access");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** GETs/s with `concurrency` closed-loop clients for `count` GETs in all. */
async function getsPerSecond(server: Server, concurrency: number, count: number): Promise<number> {
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < count) {
        issued++;
        const response = await server.call("GET", CONFIGMAP, { as: "alice" });
        if (response.status !== 200) throw new Error(`GET: ${response.status} ${response.text}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** GETs/s and this process's CPU per GET (µs: the server's, as everything runs in process), less sensitive to other load than the rate. */
async function measureRound(server: Server, count: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const before = process.cpuUsage();
  const perSecond = await getsPerSecond(server, 64, count);
  const used = process.cpuUsage(before);
  return { perSecond, cpuMicros: (used.user + used.system) / count };
}

/** Of the GETs the global-default level dispatched, the share that waited in a queue (from the wait histogram). */
async function queuedShare(server: Server): Promise<number> {
  const text = (await server.call("GET", "/metrics")).text;
  const value = (pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  const level = 'flow_schema="global-default",priority_level="global-default",execute="true"';
  const immediate = value(new RegExp(`apiserver_flowcontrol_request_wait_duration_seconds_bucket\\{le="0",${level}\\} (\\d+)`));
  const all = value(new RegExp(`apiserver_flowcontrol_request_wait_duration_seconds_count\\{${level}\\} (\\d+)`));
  return all > 0 ? 1 - immediate / all : Number.NaN;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** bob's sequential GET latencies (ms), `samples` of them. */
async function latencies(server: Server, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let index = 0; index < samples; index++) {
    const started = performance.now();
    const response = await server.call("GET", CONFIGMAP, { as: "bob" });
    out.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`bob's GET: ${response.status}`);
  }
  return out;
}

interface FloodResult {
  readonly unloadedP99Ms: number;
  readonly floodedP99Ms: number;
  readonly floodRequests: number;
  readonly floodRejected: number;
}

async function flood(samples: number): Promise<FloodResult> {
  const server = await inProcessServer();
  try {
    await prepare(server);
    // The tenants' level: one share of 246 → ceil(600/246) = 3 seats; alice keeps 30 requests in flight (10×).
    await server.call("POST", `${FC}/prioritylevelconfigurations`, {
      body: {
        metadata: { name: "tenants" },
        spec: {
          type: "Limited",
          limited: { nominalConcurrencyShares: 1, limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 4, queueLengthLimit: 8 } } },
        },
      },
    });
    await server.call("POST", `${FC}/flowschemas`, {
      body: {
        metadata: { name: "tenants" },
        spec: {
          priorityLevelConfiguration: { name: "tenants" },
          matchingPrecedence: 1000,
          distinguisherMethod: { type: "ByUser" },
          rules: [
            {
              subjects: [{ kind: "Group", group: { name: "system:authenticated" } }],
              resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"] }],
            },
          ],
        },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await latencies(server, 200); // warm-up
    const unloaded = await latencies(server, samples);
    let running = true;
    let floodRequests = 0;
    let floodRejected = 0;
    const flooders = Array.from({ length: 30 }, async () => {
      while (running) {
        const response = await server.call("GET", CONFIGMAP, { as: "alice" });
        floodRequests++;
        if (response.status === 429) floodRejected++;
        // In process a 429 resolves in microtasks alone: yield, as a socket would, so timers and bob run.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const flooded = await latencies(server, samples);
    running = false;
    await Promise.all(flooders);
    return { unloadedP99Ms: percentile(unloaded, 0.99), floodedP99Ms: percentile(flooded, 0.99), floodRequests, floodRejected };
  } finally {
    await server.stop();
  }
}

/** GETs per burst, rounds and warm-up GETs per server process. */
const PLAN = { opsPerBurst: 3000, rounds: 40, warmOps: 6000, burstSeconds: 0.35, minOpsPerBurst: 1000 };
const QUICK_PLAN = { opsPerBurst: 500, rounds: 6, warmOps: 1000, burstSeconds: 0.2 };
/** Sets of server processes, each measured for a sixth of the rounds (see `startPairedServers`' rotate; why six: bench/README.md, "Paired runs"). */
const GENERATIONS = 12;
const ALICE_TOKEN = "bench-alice-token-0123456789";

/**
 * Two server processes (APF on, the default; `--enable-priority-and-fairness=false`), alice (a
 * static token: not exempt, the global-default level) allowed to read the ConfigMap, then paired
 * bursts of her GETs at c=64 over HTTP/2.
 */
async function pairedServers(quick: boolean): Promise<PairedResult> {
  const plan = quick ? QUICK_PLAN : PLAN;
  const root = makeTempDir("orch-bench-flowcontrol-");
  const tokens = join(root, "tokens.csv");
  writeFileSync(tokens, `${ALICE_TOKEN},alice,uid-alice\n`);
  const specs = [
    { name: "APF off (--enable-priority-and-fairness=false)", extraArgs: ["--token-auth-file", tokens, "--enable-priority-and-fairness=false"] },
    { name: "APF on (default)", extraArgs: ["--token-auth-file", tokens] },
  ];
  // Fresh server processes per generation (started in a turned order), their rounds pooled.
  const generations = quick ? 1 : GENERATIONS;
  const results: PairedResult[] = [];
  for (let generation = 0; generation < generations; generation++) {
    results.push(await pairedGeneration(specs, { ...plan, rounds: Math.ceil(plan.rounds / generations) }, generation));
  }
  return mergePaired(results);
}

/** One generation of the two servers: alice's objects and permission, then paired bursts. */
async function pairedGeneration(specs: readonly ServerSpec[], plan: PairedOptions, generation: number): Promise<PairedResult> {
  const started = await startPairedServers("orch-bench-flowcontrol-servers-", specs, generation);
  const clients: BurstClient[] = [];
  try {
    const rbac = "/apis/rbac.authorization.orch.io/v1";
    const objects: [string, unknown][] = [
      ["/api/v1/namespaces", { metadata: { name: "bench" } }],
      ["/api/v1/namespaces/bench/configmaps", { metadata: { name: "cm" }, data: { key: "value" } }],
      [`${rbac}/clusterroles`, { metadata: { name: "bench-reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }],
      [
        `${rbac}/clusterrolebindings`,
        {
          metadata: { name: "bench-reader" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "bench-reader" },
          subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.orch.io" }],
        },
      ],
    ];
    for (const { target } of started.servers) {
      for (const [path, body] of objects) {
        const creator = await burstClient(target, { method: "POST", path, body: () => Buffer.from(JSON.stringify(body)), expectStatus: 201 }, 1);
        await creator.burst(1);
        creator.close();
      }
      const alice = { host: target.host, port: target.port, credentials: { ca: target.credentials?.ca ?? "" }, bearerToken: ALICE_TOKEN };
      const client = await burstClient(alice, { method: "GET", path: CONFIGMAP, expectStatus: 200 }, 64);
      // The authorizer follows the watch cache: wait until alice can read.
      for (let attempt = 0; ; attempt++) {
        try {
          await client.burst(1);
          break;
        } catch (error) {
          if (attempt > 500) throw error;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      clients.push(client);
    }
    return await runPaired(serverVariants(started, clients), plan);
  } finally {
    await closeServers(started, clients);
  }
}

export async function runFlowControlSuite(options: FlowControlSuiteOptions): Promise<void> {
  const loadBefore = loadavg().map((value) => round(value));
  process.stdout.write("APF on vs off: two server processes, paired bursts of GETs at c=64 over HTTP/2\n");
  const paired = await pairedServers(options.quick);
  const pairedCost = {
    rate: mapSpread(paired.comparisons[0]?.rateRatio ?? NO_SPREAD, (x) => (1 - x) * 100),
    cpu: mapSpread(paired.comparisons[0]?.cpuRatio ?? NO_SPREAD, (x) => (x - 1) * 100),
  };
  process.stdout.write("in process: alternating rounds\n");
  const count = options.quick ? 3000 : 10000;
  const rounds = options.quick ? 2 : 12;
  const on: number[] = [];
  const off: number[] = [];
  const cpuOn: number[] = [];
  const cpuOff: number[] = [];
  // Both servers live in this process for the whole run, set up and warmed before the first round
  // (a fresh server's start-up work would otherwise fall into its first rounds); rounds alternate,
  // the order reversed every round, so drift (other processes, thermal, GC) hits both alike.
  const servers = {
    on: await inProcessServer({ flowControl: { enablePriorityAndFairness: true } }),
    off: await inProcessServer({ flowControl: { enablePriorityAndFairness: false } }),
  };
  let waited = Number.NaN;
  try {
    for (const server of [servers.on, servers.off]) await prepare(server);
    for (const server of [servers.on, servers.off]) await getsPerSecond(server, 64, Math.min(5000, count));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let index = 0; index < rounds; index++) {
      const order = index % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
      for (const variant of order) {
        const round = await measureRound(servers[variant], count);
        (variant === "on" ? on : off).push(round.perSecond);
        (variant === "on" ? cpuOn : cpuOff).push(round.cpuMicros);
      }
    }
    waited = await queuedShare(servers.on);
  } finally {
    await servers.on.stop();
    await servers.off.stop();
  }
  const withApf = median(on);
  const without = median(off);
  const cost = ((without - withApf) / without) * 100;
  const cpuCost = ((median(cpuOn) - median(cpuOff)) / median(cpuOff)) * 100;
  // Each round ran both servers back to back: the per-round difference cancels what drifts between rounds.
  const cpuDelta = spread(cpuOn.map((on, index) => on - (cpuOff[index] ?? Number.NaN)));
  const floodResult = await flood(options.quick ? 200 : 1000);
  const ratio = floodResult.floodedP99Ms / floodResult.unloadedP99Ms;
  const results = {
    suite: "flowcontrol",
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
    serverProcesses: { costPercent: pairedCost, paired: pairedJson(paired) },
    getsPerRound: count,
    rounds,
    getsPerSecond: {
      apfOn: round(withApf),
      apfOff: round(without),
      rounds: { apfOn: on.map((value) => round(value)), apfOff: off.map((value) => round(value)) },
    },
    cpuMicrosPerGet: {
      apfOn: round(median(cpuOn)),
      apfOff: round(median(cpuOff)),
      rounds: { apfOn: cpuOn.map((value) => round(value)), apfOff: cpuOff.map((value) => round(value)) },
    },
    cpuCostPercent: round(cpuCost),
    cpuMicrosDeltaPaired: mapSpread(cpuDelta, (x) => x),
    queuedPercent: round(waited * 100),
    loadAverage: { before: loadBefore, after: loadavg().map((value) => round(value)) },
    inProcessCostPercent: round(cost),
    costTargetPercent: COST_TARGET_PERCENT,
    costVerdict: verdict(pairedCost.rate, COST_TARGET_PERCENT),
    flood: { ...floodResult, unloadedP99Ms: round(floodResult.unloadedP99Ms), floodedP99Ms: round(floodResult.floodedP99Ms), ratio: round(ratio) },
    floodTargetRatio: FLOOD_TARGET_RATIO,
    meetsFloodTarget: ratio <= FLOOD_TARGET_RATIO,
  };
  mkdirSync(options.outDir, { recursive: true });
  const stem = `${new Date().toISOString().slice(0, 10)}-flowcontrol${options.quick ? "-quick" : ""}`;
  writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = [
    "# API Priority and Fairness",
    "",
    `## Server processes (the target's measure): GET of one ConfigMap by alice (static token, global-default level) over HTTP/2, c=64`,
    "",
    `Two server processes started together and warmed alike (${paired.warmOps} GETs each), then pairs of ${paired.opsPerBurst}-GET bursts; ${options.quick ? 1 : GENERATIONS} generation(s) of such processes one after another (each started in a turned order), ${paired.rounds} pairs in all, pooled (identical processes differ by a few percent for as long as they live); each burst in two halves run in mirrored order (A B B A, then B A A B: \`bench/lib/paired.ts\`); server CPU from /proc/<pid>/task/*/schedstat. Other processes used ${paired.otherCpuPercent} % of a core during the ${paired.seconds} s of measured pairs.`,
    "",
    ...pairedTables(paired, "GET"),
    "",
    `APF's cost per pair: **${describeSpread(pairedCost.rate, " %")}** of throughput — target ≤ ${COST_TARGET_PERCENT} %: ${verdict(pairedCost.rate, COST_TARGET_PERCENT)}; server CPU per GET +${describeSpread(pairedCost.cpu, " %")}.`,
    "",
    "## In process",
    "",
    `In process (no sockets), one ConfigMap GET by a non-exempt user (global-default level), c=64, ${count} GETs per round, ${rounds} rounds per variant, medians:`,
    "",
    "| APF | GETs/s | CPU µs per GET |",
    "|---|---|---|",
    `| on (default) | ${round(withApf)} | ${round(median(cpuOn))} |`,
    `| off (--enable-priority-and-fairness=false) | ${round(without)} | ${round(median(cpuOff))} |`,
    "",
    `In process, APF's cost: ${round(cost)} % of throughput; ${round(cpuCost)} % more CPU per GET (${round(median(cpuOn) - median(cpuOff))} µs; paired per round, on − off of the same round: +${describeSpread(cpuDelta, " µs")}). The server-process pairs above are the target's measure.`,
    `Load average before / after: ${loadBefore.join(", ")} / ${loadavg()
      .map((value) => round(value))
      .join(", ")} (on ${cpus().length} CPUs): above 1 the figures are noise-dominated, rerun quietly with \`npm run bench -- --suite flowcontrol\`.`,
    `Both servers run in this process, set up and warmed before the first round; rounds alternate between them (order reversed each round). The global-default level has 49 nominal seats of 600 (borrowing may add more after 10 s): ${round(waited * 100)} % of the GETs it dispatched waited in a queue; the others took a free seat at once.`,
    "",
    "Flood: alice keeps 30 GETs in flight against a level of 3 seats (10×); bob's sequential GETs in the same level, another flow:",
    "",
    "| bob's p99 | ms |",
    "|---|---|",
    `| no flood | ${round(floodResult.unloadedP99Ms)} |`,
    `| under alice's flood | ${round(floodResult.floodedP99Ms)} |`,
    "",
    `Ratio **${round(ratio)}×** (target ≤ ${FLOOD_TARGET_RATIO}×: ${ratio <= FLOOD_TARGET_RATIO ? "met" : "NOT met"}); alice sent ${floodResult.floodRequests} requests, ${floodResult.floodRejected} answered 429.`,
    "",
  ].join("\n");
  writeFileSync(join(options.outDir, `${stem}.md`), markdown);
  process.stdout.write(markdown);
}
