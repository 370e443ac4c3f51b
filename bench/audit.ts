/**
 * Audit overhead benchmark (`npm run bench -- --suite audit`, 2–3 minutes; `--quick` a smoke run),
 * issue #19's "GETs/s c=64 with audit Metadata to a file … costs ≤ 10 % of throughput": three
 * server processes started together (audit off, the baseline; `--audit-policy-file` with every
 * request at Metadata and `--audit-log-path`, the default blocking mode; the same with
 * `--audit-log-mode=batch`), warmed alike, then short bursts of GETs of one ConfigMap at c=64
 * alternating between them (`lib/paired.ts`), over HTTP/2 and then over HTTP/1.1: per round, each
 * audited server's CPU per GET and GETs/s against the baseline's of the same round; medians,
 * quartiles and the median's 95 % interval. Then an in-process A/B (both servers in this process,
 * CPU per GET). Writes bench/results/<date>-audit.{json,md}.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { inProcessServer } from "../src/testing/in-process.js";
import { parseAuditPolicy } from "../src/server/audit/policy.js";
import { logBackend } from "../src/server/audit/log-backend.js";
import { burstClient, type BurstClient } from "./lib/burst.js";
import type { Protocol } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import {
  type Comparison,
  describeSpread,
  mergePaired,
  mapSpread,
  NO_SPREAD,
  type PairedOptions,
  type PairedResult,
  pairedJson,
  pairedTables,
  runPaired,
  type Spread,
  spread,
  verdict,
} from "./lib/paired.js";
import { type PairedServers, startPairedServers } from "./lib/paired-servers.js";
import { makeTempDir } from "./lib/processes.js";
import { REPO_ROOT } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

const CONFIGMAP = "/api/v1/namespaces/default/configmaps/bench-audit-get";
const TARGET_COST_PERCENT = 10;

const log = (text: string): void => void process.stdout.write(`${text}\n`);

export interface AuditSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
  readonly workers: number;
}

/** In process, both servers in this process: CPU µs per GET (c=64) with audit off and Metadata to a file (blocking), alternating rounds. */
async function inProcessCpu(root: string, quick: boolean): Promise<{ off: number[]; on: number[] }> {
  const policy = parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n", "audit.orch.io");
  const backend = logBackend({ path: join(root, "in-process.log") });
  const servers = {
    off: await inProcessServer(),
    on: await inProcessServer({ audit: { policy, backend, apiVersion: "audit.orch.io/v1" } }),
  };
  const count = quick ? 1000 : 3000;
  const result = { off: [] as number[], on: [] as number[] };
  const gets = async (server: InProcess, total: number): Promise<void> => {
    let issued = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (issued++ < total) {
          const reply = await server.call("GET", CONFIGMAP);
          if (reply.status !== 200) throw new Error(`in-process GET: ${reply.status}`);
        }
      }),
    );
  };
  try {
    for (const server of [servers.off, servers.on]) {
      const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { metadata: { name: "bench-audit-get" }, data: { value: "x".repeat(300) } },
      });
      if (created.status !== 201) throw new Error(`in-process create: ${created.status}`);
      await gets(server, count);
    }
    for (let index = 0; index < (quick ? 2 : IN_PROCESS_ROUNDS); index++) {
      for (const variant of index % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
        const before = process.cpuUsage();
        await gets(servers[variant], count);
        // The blocking log writes at the end of the turn: its cost belongs to the round.
        await new Promise((resolve) => setImmediate(resolve));
        const used = process.cpuUsage(before);
        result[variant].push((used.user + used.system) / count);
      }
    }
  } finally {
    await servers.off.stop();
    await servers.on.stop();
    await backend.shutdown();
  }
  return result;
}

type InProcess = Awaited<ReturnType<typeof inProcessServer>>;

/** In-process rounds (each: both servers, order reversed every round). */
const IN_PROCESS_ROUNDS = 16;

/** Rounds, warm-up GETs per server, burst length (bursts sized from the warm-up's rate, at most opsPerBurst GETs). */
const PLAN = { opsPerBurst: 3000, rounds: 40, warmOps: 6000, burstSeconds: 0.35, minOpsPerBurst: 1000 };
const QUICK_PLAN = { opsPerBurst: 500, rounds: 6, warmOps: 1000, burstSeconds: 0.2 };
/** Sets of server processes, each measured for a sixth of the rounds (see `startPairedServers`' rotate; why six: bench/README.md, "Paired runs"). */
const GENERATIONS = 12;

const POLICY = "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n";

type Costs = { readonly rate: Spread; readonly cpu: Spread };

/** Throughput cost per round (1 − audited rate / baseline rate, %) and CPU cost (audited / baseline − 1, %). */
function costsOf(comparison: Comparison | undefined): Costs {
  return {
    rate: mapSpread(comparison?.rateRatio ?? NO_SPREAD, (x) => (1 - x) * 100),
    cpu: mapSpread(comparison?.cpuRatio ?? NO_SPREAD, (x) => (x - 1) * 100),
  };
}

/** One protocol's paired run over the three servers, each with its own client of that protocol. */
async function pairedGets(servers: PairedServers, protocol: Protocol, plan: PairedOptions): Promise<PairedResult> {
  log(`  paired bursts over ${protocol === "h2" ? "HTTP/2" : "HTTP/1.1"}`);
  const clients: BurstClient[] = [];
  try {
    for (const { target } of servers.servers) clients.push(await burstClient(target, { method: "GET", path: CONFIGMAP, expectStatus: 200 }, 64, protocol));
    return await runPaired(
      servers.servers.map((entry, index) => ({ name: entry.name, pid: entry.server.pid, burst: (ops: number) => (clients[index] as BurstClient).burst(ops) })),
      plan,
    );
  } finally {
    for (const client of clients) client.close();
  }
}

export async function runAuditSuite(options: AuditSuiteOptions): Promise<void> {
  const plan = options.quick ? QUICK_PLAN : PLAN;
  log("audit overhead: GET at c=64, audit off vs Metadata to a log file (blocking, the default; and batch), paired bursts");
  const root = makeTempDir("orch-bench-audit-");
  const policy = join(root, "policy.yaml");
  writeFileSync(policy, POLICY);
  const auditLog = join(root, "audit.log");
  const batchLog = join(root, "audit-batch.log");
  const loadBefore = loadavg().map((value) => round(value));
  const specs = [
    { name: "audit off", extraArgs: [] },
    { name: "audit Metadata → file", extraArgs: ["--audit-policy-file", policy, "--audit-log-path", auditLog] },
    {
      name: "same, --audit-log-mode=batch",
      extraArgs: ["--audit-policy-file", policy, "--audit-log-path", batchLog, "--audit-log-mode", "batch", "--audit-log-batch-max-size", "100"],
    },
  ];
  // Fresh server processes per generation (started in a turned order), their rounds pooled per protocol.
  const generations = options.quick ? 1 : GENERATIONS;
  const perGeneration = { ...plan, rounds: Math.ceil(plan.rounds / generations) };
  const results: Record<Protocol, PairedResult[]> = { h2: [], h1: [] };
  const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench-audit-get" }, data: { value: "x".repeat(300) } });
  for (let generation = 0; generation < generations; generation++) {
    log(`  generation ${generation + 1} of ${generations}: fresh server processes`);
    const started = await startPairedServers("orch-bench-audit-servers-", specs, generation);
    try {
      for (const { target } of started.servers) {
        const creator = await burstClient(
          target,
          { method: "POST", path: "/api/v1/namespaces/default/configmaps", body: () => Buffer.from(body), expectStatus: 201 },
          1,
        );
        await creator.burst(1);
        creator.close();
      }
      for (const protocol of ["h2", "h1"] as const) results[protocol].push(await pairedGets(started, protocol, perGeneration));
    } finally {
      await started.stop().catch(() => {});
    }
  }
  const runs = (["h2", "h1"] as const).map((protocol) => ({ protocol, result: mergePaired(results[protocol]) }));
  log("in process (both servers in this process): CPU per GET, audit off vs Metadata to a file");
  const inProcess = await inProcessCpu(root, options.quick);
  const inProcessOff = median(inProcess.off);
  const inProcessOn = median(inProcess.on);
  // Each round ran both servers back to back: the per-round difference cancels what drifts between rounds.
  const inProcessDelta = spread(inProcess.on.map((on, index) => on - (inProcess.off[index] ?? Number.NaN)));
  const costs = runs.map(({ protocol, result }) => ({ protocol, blocking: costsOf(result.comparisons[0]), batch: costsOf(result.comparisons[1]) }));
  const load = loadavg().map((value) => round(value));
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(options.outDir, { recursive: true });
  const file = join(options.outDir, `${date}-audit${options.quick ? "-quick" : ""}`);
  const markdown = [
    `# Audit overhead (${date}${options.quick ? ", quick" : ""})`,
    "",
    `GET of one ConfigMap at c=64, three server processes started together and warmed alike (${plan.warmOps} GETs each): audit off (the baseline); every request at Metadata (RequestReceived and ResponseComplete) to a JSON-lines file in the default \`--audit-log-mode=blocking\`; the same in \`batch\` mode with \`--audit-log-batch-max-size=100\`. ${generations} generations of such processes one after another (each started in a turned order), each measured for ${perGeneration.rounds} rounds per protocol, the rounds pooled (identical processes differ by a few percent for as long as they live). Per protocol, rounds of one burst per server (about ${plan.burstSeconds} s each) in two halves run in mirrored order (A B C C B A; the first server alternates between rounds: \`bench/lib/paired.ts\`). Server CPU: the sum of the process's threads' run time (/proc/<pid>/task/*/schedstat) over the burst and 15 ms after it. Each audited server's burst is set against the baseline's of the same round.`,
    "",
    ...runs.flatMap(({ protocol, result }, index) => {
      const cost = costs[index] as (typeof costs)[number];
      return [
        `## ${protocol === "h2" ? "HTTP/2 (one session per server, as client-go)" : "HTTP/1.1 (keep-alive, 64 sockets)"}: ${result.opsPerBurst} GETs per burst`,
        "",
        ...pairedTables(result, "GET"),
        "",
        `Cost of audit (default blocking mode), per round: **${describeSpread(cost.blocking.rate, " %")}** of throughput — target ≤ ${TARGET_COST_PERCENT} %: ${verdict(cost.blocking.rate, TARGET_COST_PERCENT)}; server CPU per GET +${describeSpread(cost.blocking.cpu, " %")}.`,
        `Batch mode: ${describeSpread(cost.batch.rate, " %")} of throughput; CPU per GET +${describeSpread(cost.batch.cpu, " %")}.`,
        `Other processes used ${result.otherCpuPercent} % of a core during these ${result.seconds} s.`,
        "",
      ];
    }),
    `In process (no sockets, no TLS), both servers in this process, ${options.quick ? 2 : IN_PROCESS_ROUNDS} alternating rounds of ${options.quick ? 1000 : 3000} GETs at c=64, medians: audit off ${round(inProcessOff)} µs CPU per GET, Metadata → file ${round(inProcessOn)} µs: +${round(inProcessOn - inProcessOff)} µs per GET; paired per round (on − off of the same round): +${describeSpread(inProcessDelta, " µs")}.`,
    "",
    `Load average before / after: ${loadBefore.join(", ")} / ${load.join(", ")} (on ${cpus().length} CPUs). Throughput ratios suffer most from other load (the client shares the machine); CPU per GET far less. Rerun: \`npm run bench -- --suite audit\`.`,
    "",
  ].join("\n");
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(
    `${file}.json`,
    `${JSON.stringify(
      {
        date,
        quick: options.quick,
        environment: machineEnvironment(REPO_ROOT),
        targetCostPercent: TARGET_COST_PERCENT,
        costs,
        loadAverage: { before: loadBefore, after: load },
        paired: runs.map(({ protocol, result }) => ({ protocol, ...(pairedJson(result) as object) })),
        inProcessCpuMicrosPerGet: {
          off: round(inProcessOff),
          on: round(inProcessOn),
          pairedDelta: mapSpread(inProcessDelta, (x) => x),
          rounds: { off: inProcess.off.map((value) => round(value)), on: inProcess.on.map((value) => round(value)) },
        },
      },
      null,
      2,
    )}\n`,
  );
  log("");
  log(markdown);
  log(`wrote ${file}.json and ${file}.md`);
}
