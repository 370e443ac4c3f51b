/**
 * Admission suite: the server CPU of a Pod create with the default admission chain vs with every
 * named plugin turned off (`--disable-admission-plugins`), the whole pipeline in process (no
 * sockets, so this process's CPU is the server's). Target: the chain costs ≤ 15 % of a create.
 *
 *   npm run bench -- --suite admission   writes bench/results/<date>-admission.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinPlugins } from "../src/admission/plugins/index.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { QuietGate } from "./lib/quiet.js";
import { median, round } from "./lib/stats.js";

export interface AdmissionSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

const TARGET_PERCENT = 15;

/** CPU microseconds per Pod create over `count` creates, in batches of 10 concurrent. */
async function cpuPerCreate(disable: readonly string[], count: number, round_: number): Promise<number> {
  const server = await inProcessServer({ admission: { disable } });
  try {
    await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } } });
    await server.call("POST", "/api/v1/namespaces/bench/serviceaccounts", {
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } },
    });
    const pod = (name: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, labels: { app: "bench" } },
      spec: { containers: [{ name: "c", image: "busybox:1.36", resources: { requests: { cpu: "10m", memory: "16Mi" } } }] },
    });
    // Warm-up: JIT and caches.
    for (let index = 0; index < 50; index++) await server.call("POST", "/api/v1/namespaces/bench/pods", { body: pod(`warm-${round_}-${index}`) });
    const start = process.cpuUsage();
    for (let index = 0; index < count; index += 10) {
      const batch = Array.from({ length: Math.min(10, count - index) }, (_, offset) =>
        server.call("POST", "/api/v1/namespaces/bench/pods", { body: pod(`p-${round_}-${index + offset}`) }),
      );
      const results = await Promise.all(batch);
      for (const result of results) if (result.status !== 201) throw new Error(`create failed: ${result.status} ${result.text}`);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  } finally {
    await server.stop();
  }
}

export async function runAdmissionSuite(options: AdmissionSuiteOptions): Promise<void> {
  const gate = new QuietGate(options.quietWaitMs);
  await gate.wait();
  const count = options.quick ? 200 : 1000;
  const rounds = options.quick ? 1 : 5;
  const everything = builtinPlugins().map((plugin) => plugin.name);
  const on: number[] = [];
  const off: number[] = [];
  for (let index = 0; index < rounds; index++) {
    // Alternate so drift (other processes, thermal) hits both alike.
    on.push(await cpuPerCreate([], count, index * 2));
    off.push(await cpuPerCreate(everything, count, index * 2 + 1));
  }
  const withChain = median(on);
  const without = median(off);
  const share = ((withChain - without) / withChain) * 100;
  const results = {
    suite: "admission",
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
    createsPerRound: count,
    rounds,
    cpuMicrosPerCreate: {
      defaultChain: round(withChain),
      pluginsOff: round(without),
      rounds: { defaultChain: on.map((value) => round(value)), pluginsOff: off.map((value) => round(value)) },
    },
    chainSharePercent: round(share),
    targetPercent: TARGET_PERCENT,
    meetsTarget: share <= TARGET_PERCENT,
  };
  mkdirSync(options.outDir, { recursive: true });
  const stem = `${new Date().toISOString().slice(0, 10)}-admission${options.quick ? "-quick" : ""}`;
  writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = [
    "# Admission chain cost",
    "",
    `Pod creates in process (${count} per round, batches of 10, ${rounds} rounds, medians), server CPU per create:`,
    "",
    "| chain | CPU µs / create |",
    "|---|---|",
    `| default chain | ${round(withChain)} |`,
    `| every named plugin off | ${round(without)} |`,
    "",
    `The chain's share of a create: **${round(share)} %** (target ≤ ${TARGET_PERCENT} %: ${share <= TARGET_PERCENT ? "met" : "NOT met"}).`,
    "",
  ].join("\n");
  writeFileSync(join(options.outDir, `${stem}.md`), markdown);
  process.stdout.write(markdown);
}
