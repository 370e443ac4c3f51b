/**
 * orch-apiserver server-side apply benchmark (`npm run bench -- --suite apply`, about 1 minute):
 * applies of a Deployment with 200 containers (each a map-list item with ports, env and
 * resources), each apply changing one container's image; the same with 4 such objects applied
 * concurrently; a no-op re-apply (merge and ownership work, no write); and, for comparison, PUTs
 * of the same object (Update ownership tracking). Reports applies/s, latency, server CPU, and the
 * share of the object's bytes that managedFields take with one and with three managers. HTTP/2.
 * Writes bench/results/<date>-apply.{json,md}. Server: the CLI as a child process (sqlite).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { h2Client, type Client, type Target } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import { asRecord, namespaceBody } from "./lib/objects.js";
import { makeTempDir, processCpuSeconds } from "./lib/processes.js";
import { QuietGate } from "./lib/quiet.js";
import { table } from "./lib/report.js";
import { adminCredentials, REPO_ROOT, startServerChild } from "./lib/server.js";
import { round, summarise, type LatencySummary } from "./lib/stats.js";

export interface ApplySuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

const NAMESPACE = "bench-apply";
const CONTAINERS = 200;
const APPLY_TYPE = "application/apply-patch+yaml";
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;

const log = (text: string): void => void process.stdout.write(`${text}\n`);

/** The applied configuration: 200 containers; `generation` picks which container's image changes. */
function deployment(name: string, generation: number): Record<string, unknown> {
  const containers = Array.from({ length: CONTAINERS }, (_, index) => ({
    name: `c${index}`,
    image: `registry.example/app-${index}:${index === generation % CONTAINERS ? generation : 0}`,
    ports: [{ containerPort: 8000 + index, name: "http" }],
    env: [
      { name: "INDEX", value: String(index) },
      { name: "MODE", value: "bench" },
    ],
    resources: { limits: { cpu: "100m", memory: "64Mi" } },
  }));
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NAMESPACE, labels: { app: name } },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
  };
}

async function expectStatus(
  client: Client,
  method: string,
  path: string,
  body: string | undefined,
  statuses: readonly number[],
  contentType?: string,
): Promise<Buffer> {
  const reply = await client.request(method, path, body, true, contentType);
  if (!statuses.includes(reply.status)) throw new Error(`${method} ${path}: HTTP ${reply.status} ${String(reply.body ?? "").slice(0, 300)}`);
  return reply.body ?? Buffer.alloc(0);
}

export interface ApplyPhase {
  readonly name: string;
  readonly concurrency: number;
  readonly perSecond: number;
  readonly requests: number;
  readonly latency: LatencySummary;
  readonly serverCpuPercent: number;
  readonly requestBytes: number;
}

/** A closed loop of `concurrency` slots; slot i sends `request(i, n)` for its n-th request. */
async function closedLoop(
  name: string,
  concurrency: number,
  warmupMs: number,
  durationMs: number,
  serverPid: number,
  request: (slot: number, count: number) => Promise<number>,
): Promise<ApplyPhase> {
  const latencies: number[] = [];
  let requestBytes = 0;
  const warmupEnd = performance.now() + warmupMs;
  const end = warmupEnd + durationMs;
  let cpuAtStart = 0;
  let measuredFrom = 0;
  let started = false;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, slot) => {
      let count = 0;
      while (performance.now() < end) {
        const sent = performance.now();
        if (!started && sent >= warmupEnd) {
          started = true;
          cpuAtStart = processCpuSeconds(serverPid);
          measuredFrom = sent;
        }
        const bytes = await request(slot, count++);
        if (sent >= warmupEnd) {
          latencies.push(performance.now() - sent);
          requestBytes = bytes;
        }
      }
    }),
  );
  const seconds = (performance.now() - measuredFrom) / 1000;
  const phase: ApplyPhase = {
    name,
    concurrency,
    perSecond: round(latencies.length / seconds),
    requests: latencies.length,
    latency: summarise(Float64Array.from(latencies)),
    serverCpuPercent: round(((processCpuSeconds(serverPid) - cpuAtStart) / seconds) * 100),
    requestBytes,
  };
  log(
    `  ${name.padEnd(36)} ${String(phase.perSecond).padStart(6)} req/s  p50 ${round(phase.latency.p50Ms)} ms  p99 ${round(phase.latency.p99Ms)} ms  server CPU ${phase.serverCpuPercent} %`,
  );
  return phase;
}

export interface ManagedFieldsShare {
  readonly managers: number;
  readonly objectBytes: number;
  readonly managedFieldsBytes: number;
  readonly share: number;
}

function shareOf(body: Buffer, managers: number): ManagedFieldsShare {
  const object = asRecord(JSON.parse(body.toString("utf8")) as unknown);
  const metadata = asRecord(object?.["metadata"]);
  const managedFields = metadata?.["managedFields"];
  if (!Array.isArray(managedFields) || managedFields.length !== managers)
    throw new Error(`expected ${managers} managedFields entries, got ${JSON.stringify(managedFields)?.slice(0, 200)}`);
  const managedFieldsBytes = Buffer.byteLength(JSON.stringify(managedFields));
  return { managers, objectBytes: body.length, managedFieldsBytes, share: round(managedFieldsBytes / body.length) };
}

export interface ApplyResults {
  readonly environment: Record<string, string | number>;
  readonly containers: number;
  readonly phases: readonly ApplyPhase[];
  readonly managedFields: readonly ManagedFieldsShare[];
}

export async function runApplySuite(options: ApplySuiteOptions): Promise<ApplyResults> {
  const root = makeTempDir("orch-bench-apply-");
  log(`orch-apiserver server-side apply benchmark (${options.quick ? "quick" : "full"}), scratch dir ${root}`);
  const gate = new QuietGate(options.quietWaitMs);
  const server = await startServerChild({ dataDir: join(root, "data") });
  const warmupMs = options.quick ? 300 : 1000;
  const durationMs = options.quick ? 1500 : 8000;
  const phases: ApplyPhase[] = [];
  const shares: ManagedFieldsShare[] = [];
  try {
    const target: Target = { host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) };
    // HTTP/2, as client-go. A fresh session per phase: the server may drop one left idle while the
    // gate waits.
    let client = await h2Client(target);
    const reconnect = async (): Promise<void> => {
      client.close();
      client = await h2Client(target);
    };
    await expectStatus(client, "POST", "/api/v1/namespaces", namespaceBody(NAMESPACE), [201]);
    const apply = async (name: string, generation: number, manager = "bench"): Promise<number> => {
      const body = JSON.stringify(deployment(name, generation));
      await expectStatus(client, "PATCH", `${DEPLOYMENTS}/${name}?fieldManager=${manager}`, body, [200, 201], APPLY_TYPE);
      return Buffer.byteLength(body);
    };
    for (let slot = 0; slot < 4; slot++) await apply(`web-${slot}`, 0);
    const generations = [0, 0, 0, 0];
    const changing = (slot: number): Promise<number> => {
      const generation = (generations[slot] ?? 0) + 1;
      generations[slot] = generation;
      return apply(`web-${slot}`, generation);
    };
    const phase = async (name: string, concurrency: number, request: (slot: number, count: number) => Promise<number>): Promise<void> => {
      await gate.wait([server.pid]);
      await reconnect();
      phases.push(await closedLoop(name, concurrency, warmupMs, durationMs, server.pid, request));
    };

    await phase(`apply, ${CONTAINERS} containers, c=1`, 1, (slot) => changing(slot));
    await phase(`apply, ${CONTAINERS} containers, c=4`, 4, (slot) => changing(slot));
    await phase(`no-op re-apply, ${CONTAINERS} containers`, 1, () => apply("web-0", generations[0] ?? 0));
    let current = asRecord(JSON.parse((await expectStatus(client, "GET", `${DEPLOYMENTS}/web-1`, undefined, [200])).toString("utf8")) as unknown) ?? {};
    await phase(`update (PUT), ${CONTAINERS} containers`, 1, async (_slot, count) => {
      const spec = asRecord(current["spec"]);
      const containers = asRecord(asRecord(spec?.["template"])?.["spec"])?.["containers"];
      const container = Array.isArray(containers) ? asRecord(containers[count % CONTAINERS] as unknown) : undefined;
      if (container !== undefined) container["image"] = `registry.example/put:${count}`;
      const body = JSON.stringify(current);
      current =
        asRecord(JSON.parse((await expectStatus(client, "PUT", `${DEPLOYMENTS}/web-1?fieldManager=putter`, body, [200])).toString("utf8")) as unknown) ?? {};
      return Buffer.byteLength(body);
    });

    // managedFields' share of the object: one applier; then a second applier and an updater.
    await reconnect();
    await apply("shares", 0);
    shares.push(shareOf(await expectStatus(client, "GET", `${DEPLOYMENTS}/shares`, undefined, [200]), 1));
    await expectStatus(
      client,
      "PATCH",
      `${DEPLOYMENTS}/shares?fieldManager=scaler&force=true`,
      JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "shares" }, spec: { replicas: 3 } }),
      [200],
      APPLY_TYPE,
    );
    await expectStatus(
      client,
      "PATCH",
      `${DEPLOYMENTS}/shares?fieldManager=labeller`,
      JSON.stringify({ metadata: { labels: { tier: "bench" } } }),
      [200],
      "application/merge-patch+json",
    );
    shares.push(shareOf(await expectStatus(client, "GET", `${DEPLOYMENTS}/shares`, undefined, [200]), 3));
    for (const share of shares)
      log(`  managedFields with ${share.managers} manager(s): ${share.managedFieldsBytes} of ${share.objectBytes} bytes (${round(share.share * 100)} %)`);
    client.close();
  } finally {
    await server.stop();
  }
  const results: ApplyResults = { environment: machineEnvironment(REPO_ROOT), containers: CONTAINERS, phases, managedFields: shares };
  mkdirSync(options.outDir, { recursive: true });
  const base = join(options.outDir, `${new Date().toISOString().slice(0, 10)}-apply${options.quick ? "-quick" : ""}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  const phaseText = table(
    ["Phase", "c", "req/s", "p50 ms", "p90 ms", "p99 ms", "requests", "request KiB", "server CPU %"],
    phases.map((phase) => [
      phase.name,
      String(phase.concurrency),
      String(phase.perSecond),
      String(round(phase.latency.p50Ms)),
      String(round(phase.latency.p90Ms)),
      String(round(phase.latency.p99Ms)),
      String(phase.requests),
      String(round(phase.requestBytes / 1024)),
      String(phase.serverCpuPercent),
    ]),
  );
  const shareText = table(
    ["Managers", "object bytes", "managedFields bytes", "share of the object"],
    shares.map((share) => [String(share.managers), String(share.objectBytes), String(share.managedFieldsBytes), `${round(share.share * 100)} %`]),
  );
  const markdown = [
    "# Server-side apply",
    "",
    `A Deployment with ${CONTAINERS} containers (ports, env, resources each), applied over HTTP/2 with each apply changing one container's image; server: the CLI with the sqlite backend.`,
    "",
    phaseText,
    "",
    "## managedFields size",
    "",
    "One applier; then also a second applier (replicas, forced) and a merge-patch updater (a label).",
    "",
    shareText,
    "",
    "## Environment",
    "",
    table(
      ["Key", "Value"],
      Object.entries(results.environment).map(([key, value]) => [key, String(value)]),
    ),
    "",
  ].join("\n");
  writeFileSync(`${base}.md`, markdown);
  log("");
  log(phaseText);
  log("");
  log(shareText);
  log(`wrote ${base}.json and ${base}.md`);
  return results;
}
