/**
 * Webhooks suite: ConfigMap creates at c=16 through the whole pipeline in process (no client
 * sockets: this process's CPU is the server's), with 0, 1 and 3 matching validating webhooks on
 * loopback HTTPS (a child process answering at once, its CPU not counted), 3 hooks that match
 * nothing, and the two webhook plugins off. Reports creates/s and server CPU µs per create.
 * Targets: one matching hook costs ≤ 300 µs of server CPU per request; a request no hook
 * matches costs ≤ 2 % more than with the plugins off.
 *
 *   npm run bench -- --suite webhooks   writes bench/results/<date>-webhooks.{json,md}
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inProcessServer } from "../src/testing/in-process.js";
import { generateTestPki } from "../src/testing/webhook-server.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { QuietGate } from "./lib/quiet.js";
import { median, round } from "./lib/stats.js";

export interface WebhooksSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

const CONCURRENCY = 16;
const TARGET_MATCHING_MICROS = 300;
const TARGET_UNMATCHED_PERCENT = 2;

interface Variant {
  readonly name: string;
  readonly hooks: number;
  /** The resource the hooks are registered for (configmaps = they match the creates). */
  readonly resource: string;
  readonly pluginsOff: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: "webhook plugins off", hooks: 0, resource: "configmaps", pluginsOff: true },
  { name: "0 hooks", hooks: 0, resource: "configmaps", pluginsOff: false },
  { name: "3 hooks, none matching", hooks: 3, resource: "secrets", pluginsOff: false },
  { name: "1 matching hook", hooks: 1, resource: "configmaps", pluginsOff: false },
  { name: "3 matching hooks", hooks: 3, resource: "configmaps", pluginsOff: false },
];

interface Measured {
  readonly createsPerSecond: number;
  readonly cpuMicrosPerCreate: number;
}

async function startAnswerer(cert: string, key: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, "dist/bench/webhook-answerer.js")], {
    env: { ...process.env, WEBHOOK_CERT: cert, WEBHOOK_KEY: key },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", (chunk: Buffer) => resolve(Number(chunk.toString("utf8").trim())));
  });
  return { child, port };
}

async function measure(variant: Variant, count: number, target: { url: string; caBundle: string }, round_: number): Promise<Measured> {
  const server = await inProcessServer({ admission: { disable: variant.pluginsOff ? ["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"] : [] } });
  try {
    if (variant.hooks > 0) {
      const webhooks = Array.from({ length: variant.hooks }, (_, index) => ({
        name: `bench-${index}.bench.io`,
        clientConfig: { url: `${target.url}/validate-${index}`, caBundle: target.caBundle },
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: [variant.resource] }],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      }));
      const created = await server.call("POST", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations", {
        body: { apiVersion: "admissionregistration.orch.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name: "bench" }, webhooks },
      });
      if (created.status !== 201) throw new Error(`configuration: ${created.status} ${created.text}`);
      await server.server.registry.freshness.waitForCurrent(5000);
    }
    const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { key: "value" } });
    const run = async (prefix: string, total: number): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < total) {
          const index = next++;
          const result = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`${prefix}-${index}`) });
          if (result.status !== 201) throw new Error(`create failed: ${result.status} ${result.text}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    await run(`warm-${round_}`, 200);
    const start = process.cpuUsage();
    const began = process.hrtime.bigint();
    await run(`c-${round_}`, count);
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    const used = process.cpuUsage(start);
    return { createsPerSecond: count / seconds, cpuMicrosPerCreate: (used.user + used.system) / count };
  } finally {
    await server.stop();
  }
}

export async function runWebhooksSuite(options: WebhooksSuiteOptions): Promise<void> {
  const gate = new QuietGate(options.quietWaitMs);
  await gate.wait();
  const count = options.quick ? 300 : 1000;
  const rounds = options.quick ? 1 : 3;
  const pki = generateTestPki();
  const answerer = await startAnswerer(pki.cert, pki.key);
  const target = { url: `https://127.0.0.1:${answerer.port}`, caBundle: pki.caBundle };
  const samples = new Map<string, Measured[]>(VARIANTS.map((variant) => [variant.name, []]));
  try {
    for (let index = 0; index < rounds; index++) {
      // Interleaved so drift on the shared machine hits every variant alike.
      for (const variant of VARIANTS) samples.get(variant.name)?.push(await measure(variant, count, target, index));
    }
  } finally {
    answerer.child.kill();
  }
  const summary = VARIANTS.map((variant) => {
    const measured = samples.get(variant.name) ?? [];
    return {
      variant: variant.name,
      createsPerSecond: round(median(measured.map((sample) => sample.createsPerSecond))),
      cpuMicrosPerCreate: round(median(measured.map((sample) => sample.cpuMicrosPerCreate))),
      rounds: measured.map((sample) => ({ createsPerSecond: round(sample.createsPerSecond), cpuMicrosPerCreate: round(sample.cpuMicrosPerCreate) })),
    };
  });
  const cpu = (name: string): number => summary.find((row) => row.variant === name)?.cpuMicrosPerCreate ?? Number.NaN;
  const oneHookMicros = cpu("1 matching hook") - cpu("0 hooks");
  const threeHookMicros = cpu("3 matching hooks") - cpu("0 hooks");
  const unmatchedPercent = ((cpu("3 hooks, none matching") - cpu("webhook plugins off")) / cpu("webhook plugins off")) * 100;
  const results = {
    suite: "webhooks",
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
    concurrency: CONCURRENCY,
    createsPerRound: count,
    rounds,
    variants: summary,
    oneMatchingHookMicros: round(oneHookMicros),
    threeMatchingHooksMicros: round(threeHookMicros),
    unmatchedOverheadPercent: round(unmatchedPercent),
    targets: { oneMatchingHookMicros: TARGET_MATCHING_MICROS, unmatchedOverheadPercent: TARGET_UNMATCHED_PERCENT },
  };
  mkdirSync(options.outDir, { recursive: true });
  const stem = `${new Date().toISOString().slice(0, 10)}-webhooks${options.quick ? "-quick" : ""}`;
  writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const verdict = (ok: boolean): string => (ok ? "met" : "NOT met");
  const markdown = [
    "# Admission webhooks cost",
    "",
    `ConfigMap creates in process at c=${CONCURRENCY} (${count} per round after 200 warm-up, ${rounds} rounds interleaved, medians); validating`,
    "hooks on loopback HTTPS in a child process that allows at once (its CPU not counted). Server CPU = this process's CPU.",
    "",
    "| variant | creates/s | server CPU µs / create |",
    "|---|---|---|",
    ...summary.map((row) => `| ${row.variant} | ${row.createsPerSecond} | ${row.cpuMicrosPerCreate} |`),
    "",
    `- One matching hook: **${round(oneHookMicros)} µs** more server CPU per create than no hooks (target ≤ ${TARGET_MATCHING_MICROS} µs: ${verdict(oneHookMicros <= TARGET_MATCHING_MICROS)}); three: ${round(threeHookMicros)} µs.`,
    `- Hooks that match nothing: **${round(unmatchedPercent)} %** more than the webhook plugins off (target ≤ ${TARGET_UNMATCHED_PERCENT} %: ${verdict(unmatchedPercent <= TARGET_UNMATCHED_PERCENT)}).`,
    "- kube-apiserver's figures for the same shape: not published that we know of; not measured here.",
    "",
  ].join("\n");
  writeFileSync(join(options.outDir, `${stem}.md`), markdown);
  process.stdout.write(markdown);
}
