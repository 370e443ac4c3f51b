/**
 * Audit overhead benchmark (`npm run bench -- --suite audit`, about a minute; `--quick` a smoke
 * run): GET of one ConfigMap at c=64 over HTTP/1.1 against two servers started alike, one without
 * audit (the baseline) and one with `--audit-policy-file` (every request at Metadata) and
 * `--audit-log-path` (one JSON event per stage to a file). Phases alternate between the two, twice,
 * and the ratio of the medians is reported against the bound (≤ 10 % of throughput).
 * Writes bench/results/<date>-audit.{json,md}.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { h1Client, type Target } from "./lib/client.js";
import type { PhaseResult } from "./lib/load.js";
import { makeTempDir } from "./lib/processes.js";
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

async function prepare(target: Target): Promise<void> {
  const client = h1Client(target, 1);
  try {
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench-audit-get" }, data: { value: "x".repeat(300) } });
    const reply = await client.request("POST", "/api/v1/namespaces/default/configmaps", body, true);
    if (reply.status !== 201) throw new Error(`create the ConfigMap: HTTP ${reply.status}`);
  } finally {
    client.close();
  }
}

export async function runAuditSuite(options: AuditSuiteOptions): Promise<void> {
  const warmupMs = options.quick ? 500 : 1500;
  const phaseMs = options.quick ? 1000 : 5000;
  const rounds = options.quick ? 1 : 2;
  log("audit overhead: GET at c=64, audit off vs Metadata to a log file");
  const root = makeTempDir("orch-bench-audit-");
  const policy = join(root, "policy.yaml");
  writeFileSync(policy, "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
  const auditLog = join(root, "audit.log");
  const servers: [string, ServerChild][] = [
    ["audit off", await startServerChild({ dataDir: join(root, "off") })],
    ["audit Metadata → file", await startServerChild({ dataDir: join(root, "on"), extraArgs: ["--audit-policy-file", policy, "--audit-log-path", auditLog] })],
  ];
  const gate = new QuietGate(options.quietWaitMs);
  const phases = new Map<string, PhaseResult[]>();
  try {
    for (const [, server] of servers) await prepare({ host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) });
    for (let pass = 0; pass < rounds; pass++) {
      for (const [name, server] of servers) {
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
          `  ${name.padEnd(24)} ${String(round(phase.perSecond)).padStart(7)} req/s  p50 ${round(phase.latency.p50Ms)} ms  p99 ${round(phase.latency.p99Ms)} ms`,
        );
        phases.set(name, [...(phases.get(name) ?? []), phase]);
      }
    }
  } finally {
    for (const [, server] of servers) await server.stop();
  }
  const summary = [...phases].map(([name, results]) => ({
    name,
    perSecond: round(median(results.map((phase) => phase.perSecond))),
    p50Ms: round(median(results.map((phase) => phase.latency.p50Ms))),
    p99Ms: round(median(results.map((phase) => phase.latency.p99Ms))),
    otherCpuPercent: round(median(results.map((phase) => phase.otherCpuPercent ?? Number.NaN))),
  }));
  const baseline = summary[0]?.perSecond ?? Number.NaN;
  const audited = summary[1]?.perSecond ?? Number.NaN;
  const costPercent = round((1 - audited / baseline) * 100);
  const logBytes = statSync(auditLog).size;
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(options.outDir, { recursive: true });
  const file = join(options.outDir, `${date}-audit${options.quick ? "-quick" : ""}`);
  const markdown = [
    `# Audit overhead (${date}${options.quick ? ", quick" : ""})`,
    "",
    `GET of one ConfigMap over HTTP/1.1, c=64, ${phaseMs / 1000} s per phase after ${warmupMs / 1000} s warm-up, ${rounds} alternating round(s) per server (medians). Baseline: the same server without audit, measured in the same run. The audited server records every request at Metadata (RequestReceived and ResponseComplete events) to a JSON-lines file (${cell(round(logBytes / 1e6))} MB written).`,
    "",
    table(
      ["server", "req/s", "p50 ms", "p99 ms", "rate / baseline", "other processes' CPU %"],
      summary.map((row) => [row.name, cell(row.perSecond), cell(row.p50Ms), cell(row.p99Ms), cell(round(row.perSecond / baseline)), cell(row.otherCpuPercent)]),
    ),
    "",
    `Throughput cost of audit: **${cell(costPercent)} %** (target ≤ ${TARGET_COST_PERCENT} %). Figures taken while other processes used much of the machine's 200 % of CPU are noise-dominated: rerun on a quiet machine before trusting the ratio.`,
    "",
    `Quiet gate: ${JSON.stringify(gate.summary())}`,
    "",
  ].join("\n");
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(
    `${file}.json`,
    `${JSON.stringify({ date, quick: options.quick, targetCostPercent: TARGET_COST_PERCENT, costPercent, summary, gate: gate.summary() }, null, 2)}\n`,
  );
  log("");
  log(markdown);
  log(`wrote ${file}.json and ${file}.md`);
}
