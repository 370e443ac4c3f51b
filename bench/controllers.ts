/**
 * Controllers suite, against a real server process (SQLite store, HTTP/2 over TLS, every default
 * controller running):
 * - garbage-collector throughput: N ConfigMaps owned by one parent ConfigMap, the parent deleted
 *   with background propagation, time until the last dependent is gone → dependents deleted/s
 *   (1,000 and 5,000 dependents);
 * - controller CPU at idle with 10,000 stored objects: the server's CPU over `idleSeconds` of no
 *   requests, against a bare idle `node` process sampled over the same window, per 10 s slice
 *   (target: no measurable CPU above the bare process — no periodic full relists — judged on the
 *   window's second half, after the one-off compaction of the heap the fill grew).
 *
 *   npm run bench -- --suite controllers   writes bench/results/<date>-controllers.{json,md}
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { h2Client, type Client } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import { configMapBody, namespaceBody } from "./lib/objects.js";
import { installCleanup, makeTempDir, processCpuSeconds, removeTempDir, spawnNode } from "./lib/processes.js";
import { QuietGate } from "./lib/quiet.js";
import { adminCredentials, REPO_ROOT, startServerChild } from "./lib/server.js";
import { round } from "./lib/stats.js";

export interface ControllersSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly quietWaitMs: number;
}

/**
 * Extra CPU of the idle server over a bare idle node process, in % of one core, that still counts
 * as "none measurable": a bare process reads 0, and one 10 ms tick over the 60 s window is 0.017 %.
 */
const IDLE_EXCESS_TARGET_PERCENT = 0.1;

const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Runs `count` requests built by `make`, `concurrency` at a time; throws on a non-2xx answer. */
async function runAll(client: Client, count: number, concurrency: number, make: (index: number) => [string, string, string?]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < count; index = next++) {
      const [method, path, body] = make(index);
      const reply = await client.request(method, path, body, true);
      if (reply.status < 200 || reply.status > 299) throw new Error(`${method} ${path}: ${reply.status} ${reply.body?.toString("utf8").slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Dependents deleted per second when their one owner is deleted with background propagation. */
async function gcThroughput(client: Client, dependents: number, run: number): Promise<{ dependents: number; seconds: number; perSecond: number }> {
  const namespace = `gc-${run}`;
  await client.request("POST", "/api/v1/namespaces", namespaceBody(namespace));
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const owner = await client.request("POST", path, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } }), true);
  const uid = String((JSON.parse(owner.body?.toString("utf8") ?? "{}") as { metadata?: { uid?: string } }).metadata?.uid);
  const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }];
  await runAll(client, dependents, 16, (index) => [
    "POST",
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `dep-${index}`, labels: { dep: "yes" }, ownerReferences },
      data: { index: String(index) },
    }),
  ]);
  const started = performance.now();
  const deleted = await client.request("DELETE", `${path}/owner`, JSON.stringify({ propagationPolicy: "Background" }));
  if (deleted.status !== 200) throw new Error(`delete owner: ${deleted.status}`);
  for (;;) {
    const left = await client.request("GET", `${path}?labelSelector=dep%3Dyes&limit=1`, undefined, true);
    const items = (JSON.parse(left.body?.toString("utf8") ?? "{}") as { items?: unknown[] }).items ?? [];
    if (items.length === 0) break;
    await sleep(10);
  }
  const seconds = (performance.now() - started) / 1000;
  return { dependents, seconds: round(seconds), perSecond: round(dependents / seconds) };
}

/** Length of one slice of the idle window: where in the window the CPU went. */
const SLICE_SECONDS = 10;

interface IdleCpu {
  /** CPU ms per `SLICE_SECONDS` slice, in order. */
  readonly serverSlicesMs: number[];
  readonly bareSlicesMs: number[];
}

/**
 * CPU of the server and of a bare idle node process over the same `seconds`, per
 * `SLICE_SECONDS` slice. CPU that only the first slices show is the fill's aftermath (V8's memory
 * reducer compacts the heap the fill grew some 20–40 s after allocation stops: seen with
 * `--trace-gc` as "Mark-Compact (reduce)"), not periodic work; the later slices are the steady idle.
 */
async function idleCpu(serverPid: number, seconds: number): Promise<IdleCpu> {
  const bare = spawnNode(["-e", "setInterval(() => {}, 3_600_000)"]);
  try {
    await sleep(1000); // past the bare process's own start-up
    const serverSlicesMs: number[] = [];
    const bareSlicesMs: number[] = [];
    let serverStart = processCpuSeconds(serverPid);
    let bareStart = processCpuSeconds(bare.pid);
    for (let elapsed = 0; elapsed < seconds; elapsed += SLICE_SECONDS) {
      await sleep(Math.min(SLICE_SECONDS, seconds - elapsed) * 1000);
      const serverNow = processCpuSeconds(serverPid);
      const bareNow = processCpuSeconds(bare.pid);
      serverSlicesMs.push(round((serverNow - serverStart) * 1000));
      bareSlicesMs.push(round((bareNow - bareStart) * 1000));
      serverStart = serverNow;
      bareStart = bareNow;
    }
    return { serverSlicesMs, bareSlicesMs };
  } finally {
    await bare.stop(1000);
  }
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/**
 * Milliseconds from a namespace's create being answered until both its `default` ServiceAccount
 * and its root-CA ConfigMap can be read (polled every 5 ms), per namespace, `count` namespaces.
 */
async function namespaceReadiness(client: Client, count: number, caName: string): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const name = `ready-${index}`;
    const created = await client.request("POST", "/api/v1/namespaces", namespaceBody(name));
    if (created.status !== 201) throw new Error(`namespace ${name}: ${created.status}`);
    const start = performance.now();
    const missing = new Set([`/api/v1/namespaces/${name}/serviceaccounts/default`, `/api/v1/namespaces/${name}/configmaps/${caName}`]);
    while (missing.size > 0) {
      if (performance.now() - start > 30_000) throw new Error(`namespace ${name}: still missing ${[...missing].join(", ")}`);
      for (const path of [...missing]) if ((await client.request("GET", path)).status === 200) missing.delete(path);
      if (missing.size > 0) await sleep(5);
    }
    times.push(round(performance.now() - start));
  }
  return times;
}

export async function runControllersSuite(options: ControllersSuiteOptions): Promise<void> {
  installCleanup();
  const gate = new QuietGate(options.quietWaitMs);
  const sizes = options.quick ? [200] : [1000, 5000];
  const idleObjects = options.quick ? 1000 : 10_000;
  // The whole window, and its second half: the steady idle the target is judged on (see idleCpu).
  const idleSeconds = options.quick ? 20 : 120;
  const dataDir = makeTempDir("orch-bench-controllers-");
  const server = await startServerChild({ dataDir });
  const client = await h2Client({ host: server.host, port: server.port, credentials: adminCredentials(dataDir) });
  try {
    const gc: { dependents: number; seconds: number; perSecond: number }[] = [];
    for (const [run, size] of sizes.entries()) {
      await gate.wait([server.pid]);
      log(`garbage collector: ${size} dependents of one owner, background deletion`);
      gc.push(await gcThroughput(client, size, run));
      log(`  ${gc.at(-1)?.perSecond} dependents/s (${gc.at(-1)?.seconds} s)`);
    }
    await gate.wait([server.pid]);
    log("new namespaces: time until the default ServiceAccount and the root CA are there");
    const readiness = await namespaceReadiness(client, options.quick ? 3 : 20, ORCH_PROFILE.rootCAConfigMap);
    const sortedReadiness = [...readiness].sort((a, b) => a - b);
    const readinessMedian = sortedReadiness[Math.floor(sortedReadiness.length / 2)] ?? 0;
    const readinessMax = sortedReadiness.at(-1) ?? 0;
    log(`  median ${readinessMedian} ms, max ${readinessMax} ms`);
    log(`idle: filling ${idleObjects} ConfigMaps in 10 namespaces`);
    for (let index = 0; index < 10; index++) await client.request("POST", "/api/v1/namespaces", namespaceBody(`idle-${index}`));
    await runAll(client, idleObjects, 16, (index) => [
      "POST",
      `/api/v1/namespaces/idle-${index % 10}/configmaps`,
      configMapBody(`idle-${index % 10}`, `cm-${index}`, 300),
    ]);
    client.close();
    await sleep(3000); // controllers settle (the GC and quota queues drain)
    const background = await gate.wait([server.pid]);
    log(`idle: sampling the server and a bare node process for ${idleSeconds} s`);
    const slices = await idleCpu(server.pid, idleSeconds);
    const half = Math.floor(slices.serverSlicesMs.length / 2);
    const steadySeconds = (slices.serverSlicesMs.length - half) * SLICE_SECONDS;
    const idle = {
      serverCpuMs: sum(slices.serverSlicesMs),
      bareCpuMs: sum(slices.bareSlicesMs),
      serverSlicesMs: slices.serverSlicesMs,
      steadyServerCpuMs: sum(slices.serverSlicesMs.slice(half)),
      steadyBareCpuMs: sum(slices.bareSlicesMs.slice(half)),
    };
    const serverPercent = idle.serverCpuMs / (idleSeconds * 10);
    const barePercent = idle.bareCpuMs / (idleSeconds * 10);
    const wholeExcess = serverPercent - barePercent;
    const excess = (idle.steadyServerCpuMs - idle.steadyBareCpuMs) / (steadySeconds * 10);
    const results = {
      suite: "controllers",
      date: new Date().toISOString(),
      environment: machineEnvironment(REPO_ROOT),
      garbageCollector: gc,
      newNamespace: { namespaces: readiness.length, msUntilServiceAccountAndRootCa: readiness, medianMs: readinessMedian, maxMs: readinessMax, targetMs: 1000 },
      idle: {
        storedObjects: idleObjects,
        seconds: idleSeconds,
        serverCpuMs: idle.serverCpuMs,
        bareNodeCpuMs: idle.bareCpuMs,
        serverCpuMsPerSlice: idle.serverSlicesMs,
        sliceSeconds: SLICE_SECONDS,
        steadySeconds,
        steadyServerCpuMs: idle.steadyServerCpuMs,
        steadyBareNodeCpuMs: idle.steadyBareCpuMs,
        wholeWindowExcessPercentOfCore: round(wholeExcess),
        serverCpuPercentOfCore: round(serverPercent),
        bareNodeCpuPercentOfCore: round(barePercent),
        excessPercentOfCore: round(excess),
        targetExcessPercentOfCore: IDLE_EXCESS_TARGET_PERCENT,
        meetsTarget: excess <= IDLE_EXCESS_TARGET_PERCENT,
        otherProcessesPercentAtStart: background,
      },
    };
    mkdirSync(options.outDir, { recursive: true });
    const stem = `${new Date().toISOString().slice(0, 10)}-controllers${options.quick ? "-quick" : ""}`;
    writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
    const markdown = [
      "# Controllers",
      "",
      "A server process (SQLite, HTTP/2 over TLS, default controllers), driven from the bench process.",
      "",
      "## Garbage collector: one owner deleted with background propagation",
      "",
      "| dependents | seconds until all gone | dependents deleted / s |",
      "|---|---|---|",
      ...gc.map((row) => `| ${row.dependents} | ${row.seconds} | ${row.perSecond} |`),
      "",
      "## New namespaces: until the `default` ServiceAccount and the root-CA ConfigMap are readable",
      "",
      `${readiness.length} namespaces, one at a time: median **${readinessMedian} ms**, max **${readinessMax} ms** (target ≤ 1,000 ms: ${readinessMax <= 1000 ? "met" : "NOT met"}).`,
      "",
      `## Idle with ${idleObjects} stored objects (${idleSeconds} s, no requests)`,
      "",
      "| process | CPU ms | % of a core |",
      "|---|---|---|",
      `| server | ${idle.serverCpuMs} | ${round(serverPercent)} |`,
      `| bare idle node (same window) | ${idle.bareCpuMs} | ${round(barePercent)} |`,
      "",
      `Excess over the bare process over the whole window: ${round(wholeExcess)} % of a core (this includes the fill's aftermath: V8's memory reducer compacting the heap the fill grew, a one-off).`,
      `Steady idle, the window's last ${steadySeconds} s: server ${idle.steadyServerCpuMs} ms, bare node ${idle.steadyBareCpuMs} ms: excess **${round(excess)} %** of a core (target ≤ ${IDLE_EXCESS_TARGET_PERCENT} %: ${excess <= IDLE_EXCESS_TARGET_PERCENT ? "met" : "NOT met"}).`,
      `/proc counts CPU in 10 ms ticks. Other processes used ${background} % of a core when sampling began.`,
      `Server CPU per ${SLICE_SECONDS} s slice of the window, in order (ms): ${idle.serverSlicesMs.join(", ")}.`,
      "",
    ].join("\n");
    writeFileSync(join(options.outDir, `${stem}.md`), markdown);
    process.stdout.write(markdown);
  } finally {
    client.close();
    await server.stop();
    removeTempDir(dataDir);
  }
}
