/**
 * Flow-control suite, the whole pipeline in process (no sockets; this process's CPU is the server's):
 *  1. GETs/s at c=64 of one ConfigMap by a non-exempt user (global-default level) with API
 *     Priority and Fairness on vs `--enable-priority-and-fairness=false`. Target: ≤ 10 % cost.
 *  2. Flood: a second user's sequential GET latency (p99) while a first user keeps 10× its
 *     level's seats busy, against the second user's p99 with no flood. Target: ≤ 5×.
 *
 *   npm run bench -- --suite flowcontrol   writes bench/results/<date>-flowcontrol.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { inProcessServer } from "../src/testing/in-process.js";
import { machineEnvironment } from "./lib/environment.js";
import { QuietGate } from "./lib/quiet.js";
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
async function throughput(enable: boolean, count: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const server = await inProcessServer({ flowControl: { enablePriorityAndFairness: enable } });
  try {
    await prepare(server);
    await getsPerSecond(server, 64, Math.min(2000, count)); // warm-up
    const before = process.cpuUsage();
    const perSecond = await getsPerSecond(server, 64, count);
    const used = process.cpuUsage(before);
    return { perSecond, cpuMicros: (used.user + used.system) / count };
  } finally {
    await server.stop();
  }
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

export async function runFlowControlSuite(options: FlowControlSuiteOptions): Promise<void> {
  const gate = new QuietGate(options.quietWaitMs);
  await gate.wait();
  const count = options.quick ? 3000 : 20000;
  const rounds = options.quick ? 1 : 5;
  const on: number[] = [];
  const off: number[] = [];
  const cpuOn: number[] = [];
  const cpuOff: number[] = [];
  for (let index = 0; index < rounds; index++) {
    // Alternate so drift (other processes, thermal) hits both alike.
    const withFlowControl = await throughput(true, count);
    const withoutFlowControl = await throughput(false, count);
    on.push(withFlowControl.perSecond);
    off.push(withoutFlowControl.perSecond);
    cpuOn.push(withFlowControl.cpuMicros);
    cpuOff.push(withoutFlowControl.cpuMicros);
  }
  const withApf = median(on);
  const without = median(off);
  const cost = ((without - withApf) / without) * 100;
  const cpuCost = ((median(cpuOn) - median(cpuOff)) / median(cpuOff)) * 100;
  const floodResult = await flood(options.quick ? 200 : 1000);
  const ratio = floodResult.floodedP99Ms / floodResult.unloadedP99Ms;
  const results = {
    suite: "flowcontrol",
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
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
    loadAverage: loadavg().map((value) => round(value)),
    costPercent: round(cost),
    costTargetPercent: COST_TARGET_PERCENT,
    meetsCostTarget: cost <= COST_TARGET_PERCENT,
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
    `In process (no sockets), one ConfigMap GET by a non-exempt user (global-default level), c=64, ${count} GETs per round, ${rounds} rounds, medians:`,
    "",
    "| APF | GETs/s | CPU µs per GET |",
    "|---|---|---|",
    `| on (default) | ${round(withApf)} | ${round(median(cpuOn))} |`,
    `| off (--enable-priority-and-fairness=false) | ${round(without)} | ${round(median(cpuOff))} |`,
    "",
    `APF's cost: **${round(cost)} %** of throughput (target ≤ ${COST_TARGET_PERCENT} %: ${cost <= COST_TARGET_PERCENT ? "met" : "NOT met"}); **${round(cpuCost)} %** more CPU per GET.`,
    `Load average while measuring: ${loadavg()
      .map((value) => round(value))
      .join(", ")} (on ${cpus().length} CPUs): above 1 the figures are noise-dominated, rerun quietly with \`npm run bench -- --suite flowcontrol\`.`,
    "Note: at c=64 the global-default level (49 nominal seats of 600) queues until the first borrowing adjustment (10 s), longer than a round: these rounds measure APF with queuing, as a fresh kube-apiserver does.",
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
