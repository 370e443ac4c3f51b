/**
 * CRD suite: custom resources at operator scale, the whole pipeline in process. Installs
 * `--crd-count` definitions shaped like controller-gen output of about `--crd-kb` KB each
 * (nested, described, string enums, defaults, CEL rules, two versions), then reports: time until
 * all are Established (and per block of definitions, which shows whether installing slows down
 * as definitions add up), RSS and heap growth per definition, aggregated discovery and OpenAPI v3
 * of one group version right after the last one (first request, built then), and custom object
 * creates at concurrency 16 on a definition with CEL rules against ConfigMap creates in the same
 * run — rounds of each in turn, by throughput and by CPU time per create.
 *
 * The store is the server's default, SQLite on disk (`--crd-storage sqlite`): the server's memory
 * per definition, as kube's figure is kube-apiserver's without etcd. `--crd-storage memory` keeps
 * the stored definitions (every revision until compaction) in the same heap.
 *
 *   npm run bench -- --suite crd [--crd-count 2000] [--crd-kb 300] [--crd-storage sqlite|memory]
 *   writes bench/results/<date>-crd[-<count>].{json,md}
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { SqliteStorage } from "../src/storage/sqlite/sqlite-storage.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { round } from "./lib/stats.js";

export interface CrdSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  readonly count: number;
  readonly kilobytes: number;
  readonly storage: "sqlite" | "memory";
}

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const DISCOVERY_ACCEPT = `application/json;g=apidiscovery.${ORCH_PROFILE.apiDomain};v=v2;as=APIGroupDiscoveryList`;

type Server = Awaited<ReturnType<typeof inProcessServer>>;

/** A full collection, with or without `--expose-gc` (RSS and heap figures are taken after one). */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function memoryMb(collect: () => void): { readonly rss: number; readonly heap: number } {
  collect();
  collect();
  const usage = process.memoryUsage();
  return { rss: usage.rss / 1024 / 1024, heap: usage.heapUsed / 1024 / 1024 };
}

interface CreateRound {
  readonly perSecond: number;
  /** CPU time of this process (server and in-process client alike) per create, µs. */
  readonly cpuMicros: number;
}

async function creates(server: Server, path: string, body: (index: number) => unknown, total: number): Promise<CreateRound> {
  let next = 0;
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const worker = async (): Promise<void> => {
    for (let index = next++; index < total; index = next++) {
      const response = await server.call("POST", path, { body: body(index) });
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, () => worker()));
  const used = process.cpuUsage(cpu);
  return { perSecond: total / (Number(process.hrtime.bigint() - start) / 1e9), cpuMicros: (used.user + used.system) / total };
}

/** Until the server has answered with the whole body (the in-process client's own JSON parse of megabytes is not counted). */
async function timed(call: () => Promise<{ status: number; body: unknown }>): Promise<{ readonly ms: number; readonly bytes: number }> {
  const start = process.hrtime.bigint();
  const response = await call();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const body = response.body;
  return { ms, bytes: typeof body === "string" ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.length : 0 };
}

async function established(server: Server, group: string): Promise<void> {
  for (;;) {
    const response = await server.call("GET", `/apis/${group}/v1`);
    if (response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function runCrdSuite(options: CrdSuiteOptions): Promise<void> {
  const count = options.quick ? Math.min(options.count, 20) : options.count;
  const collect = collector();
  const directory = options.storage === "sqlite" ? mkdtempSync(join(tmpdir(), "orch-crd-bench-")) : undefined;
  const storage = directory === undefined ? undefined : SqliteStorage.open(join(directory, "state.db"));
  const server = await inProcessServer(storage === undefined ? {} : { storage });
  try {
    const before = memoryMb(collect);
    const start = process.hrtime.bigint();
    let schemaBytes = 0;
    const block = Math.max(1, Math.round(count / 10));
    const blockSeconds: number[] = [];
    let blockStart = start;
    for (let index = 0; index < count; index++) {
      const fixture = crdFixture({
        group: `g${index}.bench.example.com`,
        plural: "things",
        kind: "Thing",
        apiextensionsGroup: APIEXTENSIONS,
        padding: options.kilobytes * 1024,
      });
      if (index === 0) schemaBytes = JSON.stringify(fixture).length;
      const response = await server.call("POST", CRDS, { body: fixture });
      if (response.status !== 201) throw new Error(`CRD ${index}: ${response.status} ${response.text.slice(0, 300)}`);
      if ((index + 1) % block === 0 || index === count - 1) {
        await established(server, `g${index}.bench.example.com`);
        const now = process.hrtime.bigint();
        blockSeconds.push(round(Number(now - blockStart) / 1e9));
        blockStart = now;
      }
    }
    const lastGroup = `g${count - 1}.bench.example.com`;
    await established(server, lastGroup);
    const establishedSeconds = Number(process.hrtime.bigint() - start) / 1e9;
    const discovery = await timed(() => server.raw("GET", "/apis", { headers: { accept: DISCOVERY_ACCEPT } }));
    const openApi = await timed(() => server.raw("GET", `/openapi/v3/apis/${lastGroup}/v1`));
    const after = memoryMb(collect);
    const total = options.quick ? 200 : 1000;
    const rounds = options.quick ? 1 : 4;
    const thing = (prefix: string) => (index: number) => ({
      apiVersion: "g0.bench.example.com/v1",
      kind: "Thing",
      metadata: { name: `${prefix}-${index}` },
      spec: { image: "nginx:1.25", replicas: 3, ports: [{ name: "http", port: 80 }] },
    });
    const configMap = (prefix: string) => (index: number) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${prefix}-${index}` },
      data: { a: "1" },
    });
    const things = "/apis/g0.bench.example.com/v1/namespaces/default/things";
    const configMaps = "/api/v1/namespaces/default/configmaps";
    // Warm-up of both paths (compiling the version's schema, JIT), then rounds of each in turn.
    // 500 creates each were too few: the first measured custom round still paid the optimizing
    // compiler for the custom path's extra code (about twice the CPU per create of later rounds,
    // the ConfigMap round far less), which the average then charged to custom objects.
    const warmUp = options.quick ? 1000 : 3000;
    await creates(server, things, thing("w"), warmUp);
    await creates(server, configMaps, configMap("w"), warmUp);
    // The objects compared, as served after their create (defaults and managedFields included).
    const servedBytes = async (path: string): Promise<number> => Buffer.byteLength((await server.call("GET", `${path}/w-0`)).text);
    const customBytes = await servedBytes(things);
    const configMapBytes = await servedBytes(configMaps);
    const custom: CreateRound[] = [];
    const builtin: CreateRound[] = [];
    for (let index = 0; index < rounds; index++) {
      custom.push(await creates(server, things, thing(`r${index}`), total));
      builtin.push(await creates(server, configMaps, configMap(`r${index}`), total));
    }
    // Rates over all rounds (harmonic: total creates over total time), CPU per create averaged.
    const rate = (list: readonly CreateRound[]) => list.length / list.reduce((sum, item) => sum + 1 / item.perSecond, 0);
    const cpu = (list: readonly CreateRound[]) => list.reduce((sum, item) => sum + item.cpuMicros, 0) / list.length;
    const customPerSecond = rate(custom);
    const configMapsPerSecond = rate(builtin);
    const results = {
      suite: "crd",
      date: new Date().toISOString(),
      environment: machineEnvironment(REPO_ROOT),
      storage: options.storage,
      definitions: count,
      definitionBytes: schemaBytes,
      establishedSeconds: round(establishedSeconds),
      secondsPerBlock: { definitionsPerBlock: block, seconds: blockSeconds },
      rssMbPerDefinition: round((after.rss - before.rss) / count),
      heapMbPerDefinition: round((after.heap - before.heap) / count),
      discoveryMs: round(discovery.ms),
      discoveryBytes: discovery.bytes,
      openApiV3Ms: round(openApi.ms),
      openApiV3Bytes: openApi.bytes,
      warmUpCreates: warmUp,
      customObjectBytes: customBytes,
      configMapBytes,
      customCreatesPerSecond: round(customPerSecond),
      configMapCreatesPerSecond: round(configMapsPerSecond),
      customToConfigMapPercent: round((customPerSecond / configMapsPerSecond) * 100),
      customCpuMicrosPerCreate: round(cpu(custom)),
      configMapCpuMicrosPerCreate: round(cpu(builtin)),
      cpuRatioPercent: round((cpu(builtin) / cpu(custom)) * 100),
      rounds: { custom, configMaps: builtin },
    };
    mkdirSync(options.outDir, { recursive: true });
    const stem = `${new Date().toISOString().slice(0, 10)}-crd-${count}${options.quick ? "-quick" : ""}`;
    writeFileSync(join(options.outDir, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
    const markdown = [
      "# Custom resources at scale",
      "",
      `${count} CustomResourceDefinitions of ${round(schemaBytes / 1024)} KB each (controller-gen shaped, two versions, CEL rules), in process, ${options.storage === "sqlite" ? "SQLite store on disk (the server's default)" : "memory store (stored revisions in the same heap)"}.`,
      "",
      "| measure | value | target |",
      "|---|---|---|",
      `| time until all Established | ${results.establishedSeconds} s | |`,
      `| … per block of ${block} definitions, in order | ${blockSeconds.join(", ")} s | flat (no slow-down as definitions add up) |`,
      `| RSS growth per definition | ${results.rssMbPerDefinition} MB | ≤ 1 MB |`,
      `| heap growth per definition | ${results.heapMbPerDefinition} MB | |`,
      `| aggregated discovery, first request after the last one (server time, ${round(discovery.bytes / 1024)} KB) | ${results.discoveryMs} ms | ≤ 50 ms |`,
      `| OpenAPI v3 of one group version, first request after the last one (server time, ${round(openApi.bytes / 1024)} KB) | ${results.openApiV3Ms} ms | ≤ 50 ms |`,
      `| custom object creates/s, c=16 (CEL rules declared), ${rounds} × ${total} after ${warmUp} of each to warm up | ${results.customCreatesPerSecond} | |`,
      `| ConfigMap creates/s, c=16, same run, in turn | ${results.configMapCreatesPerSecond} | |`,
      `| custom / ConfigMap creates/s | ${results.customToConfigMapPercent} % | ≥ 70 % |`,
      `| CPU per create: custom / ConfigMap (µs, whole process) | ${results.customCpuMicrosPerCreate} / ${results.configMapCpuMicrosPerCreate} (ConfigMap = ${results.cpuRatioPercent} % of custom) | |`,
      `| objects compared, as served after create (JSON bytes): custom / ConfigMap | ${customBytes} / ${configMapBytes} | |`,
      "",
    ].join("\n");
    writeFileSync(join(options.outDir, `${stem}.md`), markdown);
    process.stdout.write(markdown);
  } finally {
    await server.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }
}
