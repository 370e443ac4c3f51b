/**
 * Audit overhead benchmark (`npm run bench -- --suite audit`, about a minute; `--quick` a smoke
 * run): GET of one ConfigMap at c=64 over HTTP/1.1 against two servers started alike, one without
 * audit (the baseline), one with `--audit-policy-file` (every request at Metadata) and
 * `--audit-log-path` (one JSON event per stage to a file, the default blocking mode), and one
 * with `--audit-log-mode=batch`. Phases alternate between them (order reversed every round, 4
 * rounds); throughput and the server's CPU per GET (from /proc) are reported as medians against
 * the bound (≤ 10 %). Then an in-process A/B (both servers in this process, alternating
 * rounds, CPU per GET): the figure that survives a loaded machine.
 * Writes bench/results/<date>-audit.{json,md}.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { h1Client, type Target } from "./lib/client.js";
import type { PhaseResult } from "./lib/load.js";
import { makeTempDir } from "./lib/processes.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { parseAuditPolicy } from "../src/server/audit/policy.js";
import { logBackend } from "../src/server/audit/log-backend.js";
import { QuietGate } from "./lib/quiet.js";
import { cell, table } from "./lib/report.js";
import { adminCredentials, startServerChild, type ServerChild } from "./lib/server.js";
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

/** GETs each server answers before its first measured phase: the code paths are compiled by then, whatever the machine's load. */
const WARM_UP_GETS = 4000;

async function prepare(target: Target, warmUpGets: number): Promise<void> {
  const client = h1Client(target, 16);
  try {
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench-audit-get" }, data: { value: "x".repeat(300) } });
    const reply = await client.request("POST", "/api/v1/namespaces/default/configmaps", body, true);
    if (reply.status !== 201) throw new Error(`create the ConfigMap: HTTP ${reply.status}`);
    let issued = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (issued++ < warmUpGets) await client.request("GET", CONFIGMAP, undefined, true);
      }),
    );
  } finally {
    client.close();
  }
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
    for (let index = 0; index < (quick ? 2 : 10); index++) {
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

/** One server variant's phases. */
interface Variant {
  readonly name: string;
  readonly server: ServerChild;
  readonly phases: PhaseResult[];
}

const cpuMicrosPerGet = (phase: PhaseResult): number =>
  phase.serverCpuSeconds === undefined || !phase.cpuWindowRequests ? Number.NaN : (phase.serverCpuSeconds * 1e6) / phase.cpuWindowRequests;

export async function runAuditSuite(options: AuditSuiteOptions): Promise<void> {
  const warmupMs = options.quick ? 500 : 1000;
  const phaseMs = options.quick ? 1000 : 3000;
  const rounds = options.quick ? 1 : 4;
  log("audit overhead: GET at c=64, audit off vs Metadata to a log file (blocking, the default; and batch)");
  const root = makeTempDir("orch-bench-audit-");
  const policy = join(root, "policy.yaml");
  writeFileSync(policy, "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
  const auditLog = join(root, "audit.log");
  const batchLog = join(root, "audit-batch.log");
  const variants: Variant[] = [
    { name: "audit off", server: await startServerChild({ dataDir: join(root, "off") }), phases: [] },
    {
      name: "audit Metadata → file",
      server: await startServerChild({ dataDir: join(root, "on"), extraArgs: ["--audit-policy-file", policy, "--audit-log-path", auditLog] }),
      phases: [],
    },
    {
      name: "same, --audit-log-mode=batch",
      server: await startServerChild({
        dataDir: join(root, "batch"),
        extraArgs: ["--audit-policy-file", policy, "--audit-log-path", batchLog, "--audit-log-mode", "batch", "--audit-log-batch-max-size", "100"],
      }),
      phases: [],
    },
  ];
  const gate = new QuietGate(options.quietWaitMs);
  try {
    for (const { server } of variants)
      await prepare({ host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) }, options.quick ? 500 : WARM_UP_GETS);
    for (let pass = 0; pass < rounds; pass++) {
      // Alternate the order every round, so drift in the machine's load hits every variant alike.
      const order = pass % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const { name, server } = variant;
        const phase = await gate.phase({
          name: `GET (${name})`,
          protocol: "h1",
          target: { host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) },
          concurrency: 64,
          scenario: { kind: "get", path: CONFIGMAP, expectStatus: 200 },
          warmupMs,
          durationMs: phaseMs,
          workers: options.workers,
          serverPid: server.pid,
        });
        if (phase.failures > 0) throw new Error(`GET (${name}) failed ${phase.failures} times: ${phase.firstError ?? "?"}`);
        log(
          `  ${name.padEnd(30)} ${String(round(phase.perSecond)).padStart(7)} req/s  server ${round(cpuMicrosPerGet(phase))} µs CPU per GET  p99 ${round(phase.latency.p99Ms)} ms  other CPU ${phase.otherCpuPercent} %`,
        );
        variant.phases.push(phase);
      }
    }
  } finally {
    for (const { server } of variants) await server.stop();
  }
  log("in process (both servers in this process): CPU per GET, audit off vs Metadata to a file");
  const inProcess = await inProcessCpu(root, options.quick);
  const inProcessOff = median(inProcess.off);
  const inProcessOn = median(inProcess.on);
  const summary = variants.map(({ name, phases }) => ({
    name,
    perSecond: round(median(phases.map((phase) => phase.perSecond))),
    serverCpuMicrosPerGet: round(median(phases.map(cpuMicrosPerGet))),
    p50Ms: round(median(phases.map((phase) => phase.latency.p50Ms))),
    p99Ms: round(median(phases.map((phase) => phase.latency.p99Ms))),
    otherCpuPercent: round(median(phases.map((phase) => phase.otherCpuPercent ?? Number.NaN))),
    rounds: phases.map((phase) => ({ perSecond: round(phase.perSecond), serverCpuMicrosPerGet: round(cpuMicrosPerGet(phase)) })),
  }));
  const [baseline, audited, batched] = summary;
  const cost = (row: (typeof summary)[number] | undefined) => round((1 - (row?.perSecond ?? Number.NaN) / (baseline?.perSecond ?? Number.NaN)) * 100);
  const cpuCost = (row: (typeof summary)[number] | undefined) =>
    round(((row?.serverCpuMicrosPerGet ?? Number.NaN) / (baseline?.serverCpuMicrosPerGet ?? Number.NaN) - 1) * 100);
  const costPercent = cost(audited);
  const cpuCostPercent = cpuCost(audited);
  const logBytes = statSync(auditLog).size;
  const load = loadavg().map((value) => round(value));
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(options.outDir, { recursive: true });
  const file = join(options.outDir, `${date}-audit${options.quick ? "-quick" : ""}`);
  const markdown = [
    `# Audit overhead (${date}${options.quick ? ", quick" : ""})`,
    "",
    `GET of one ConfigMap over HTTP/1.1, c=64, ${phaseMs / 1000} s per phase after ${warmupMs / 1000} s warm-up (and ${options.quick ? 500 : WARM_UP_GETS} untimed GETs per server before the first phase), ${rounds} round(s) per server in alternating order (medians). Baseline: the same server without audit, measured in the same run (the bare limit). The audited servers record every request at Metadata (RequestReceived and ResponseComplete events) to a JSON-lines file (${cell(round(logBytes / 1e6))} MB written by the default one): the default \`--audit-log-mode=blocking\`, and \`batch\` with \`--audit-log-batch-max-size=100\`. Server CPU per GET is the server process's CPU time (all threads, /proc) over the GETs it answered.`,
    "",
    table(
      ["server", "req/s", "server CPU µs per GET", "p50 ms", "p99 ms", "rate / baseline", "CPU / baseline", "other processes' CPU %"],
      summary.map((row) => [
        row.name,
        cell(row.perSecond),
        cell(row.serverCpuMicrosPerGet),
        cell(row.p50Ms),
        cell(row.p99Ms),
        cell(round(row.perSecond / (baseline?.perSecond ?? Number.NaN))),
        cell(round(row.serverCpuMicrosPerGet / (baseline?.serverCpuMicrosPerGet ?? Number.NaN))),
        cell(row.otherCpuPercent),
      ]),
    ),
    "",
    `Cost of audit (default mode): **${cell(costPercent)} %** of throughput (target ≤ ${TARGET_COST_PERCENT} %: ${costPercent <= TARGET_COST_PERCENT ? "met" : "NOT met"}), **${cell(cpuCostPercent)} %** more server CPU per GET. Batch mode: ${cell(cost(batched))} % of throughput, ${cell(cpuCost(batched))} % more CPU per GET.`,
    `In process (no sockets, no TLS: the GET is cheaper, so audit's share is larger than over HTTP), both servers in this process, ${options.quick ? 2 : 10} alternating rounds of ${options.quick ? 1000 : 3000} GETs at c=64 each, medians: audit off ${cell(round(inProcessOff))} µs CPU per GET, Metadata → file ${cell(round(inProcessOn))} µs: **+${cell(round(inProcessOn - inProcessOff))} µs** per GET (${cell(round((inProcessOn / inProcessOff - 1) * 100))} %). This is the figure to read on a loaded machine.`,
    `Load average while measuring: ${load.join(", ")} (on ${cpus().length} CPUs). With other processes busy the throughput ratio is noise; the CPU per GET is far less sensitive to them. Rerun quietly with \`npm run bench -- --suite audit\`.`,
    "",
    `Quiet gate: ${JSON.stringify(gate.summary())}`,
    "",
  ].join("\n");
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(
    `${file}.json`,
    `${JSON.stringify(
      {
        date,
        quick: options.quick,
        targetCostPercent: TARGET_COST_PERCENT,
        costPercent,
        cpuCostPercent,
        loadAverage: load,
        summary,
        inProcessCpuMicrosPerGet: {
          off: round(inProcessOff),
          on: round(inProcessOn),
          rounds: { off: inProcess.off.map((value) => round(value)), on: inProcess.on.map((value) => round(value)) },
        },
        gate: gate.summary(),
      },
      null,
      2,
    )}\n`,
  );
  log("");
  log(markdown);
  log(`wrote ${file}.json and ${file}.md`);
}
