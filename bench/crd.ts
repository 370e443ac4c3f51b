/**
 * CRD suite: custom resources at operator scale, the whole pipeline in process. Installs
 * `--crd-count` definitions shaped like controller-gen output of about `--crd-kb` KB each
 * (nested, described, string enums, defaults, CEL rules, two versions), then reports: time until
 * all are Established (and per block of definitions, which shows whether installing slows down
 * as definitions add up), RSS and heap growth per definition, aggregated discovery (`/apis`) and
 * OpenAPI v3 of the last group version right after the last one is Established — the first
 * request and the median of the next 5, over HTTP/2 and TLS as a client sends them (kubectl's
 * Accept and Accept-Encoding: gzip; timed from the request to the body's last byte, on a
 * connection opened before the last definition; discovery was asked for once before the install,
 * as a client applying definitions does), plus the server's own time in process — and custom object
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
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { loadavg, tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { SqliteStorage } from "../src/storage/sqlite/sqlite-storage.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { generateTestPki } from "../src/testing/webhook-server.js";
import { startHttpServer, type HttpServer } from "../src/server/http-server.js";
import { machineEnvironment } from "./lib/environment.js";
import { REPO_ROOT } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

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

interface Fetched {
  readonly ms: number;
  /** CPU time of this whole process (server, client, controllers) while the request ran: far below `ms` = the time went waiting for a core. */
  readonly cpuMs: number;
  /** Bytes on the wire (gzipped when the server gzipped). */
  readonly bytes: number;
  readonly encoding: string;
  readonly body: Buffer;
}

/** One GET on an HTTP/2 session as an admin client, timed from the request to the body's last byte. */
function fetchH2(session: http2.ClientHttp2Session, path: string, headers: Record<string, string>): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const stream = session.request({ ":path": path, authorization: "Bearer admin-token", "user-agent": "orch-bench/0.1", ...headers });
    let status = 0;
    let encoding = "identity";
    const chunks: Buffer[] = [];
    stream.once("response", (responseHeaders) => {
      status = Number(responseHeaders[":status"] ?? 0);
      encoding = String(responseHeaders["content-encoding"] ?? "identity");
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.once("end", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const used = process.cpuUsage(cpu);
      if (status !== 200) {
        reject(new Error(`GET ${path}: status ${status}`));
        return;
      }
      const body = Buffer.concat(chunks);
      resolve({ ms, cpuMs: (used.user + used.system) / 1000, bytes: body.length, encoding, body });
    });
    stream.once("error", reject);
  });
}

/** The first request and the median of the next 5. */
interface FirstAndNext {
  readonly firstMs: number;
  readonly firstCpuMs: number;
  readonly nextMedianMs: number;
  readonly bytes: number;
  readonly encoding: string;
}

async function nextFive(first: Fetched, fetch: () => Promise<Fetched>): Promise<FirstAndNext> {
  const next: number[] = [];
  for (let index = 0; index < 5; index++) next.push((await fetch()).ms);
  return { firstMs: round(first.ms), firstCpuMs: round(first.cpuMs), nextMedianMs: round(median(next)), bytes: first.bytes, encoding: first.encoding };
}

/** A TLS listener over the in-process server's handler, and an HTTP/2 session to it with client-go's flow-control windows. */
async function h2Listener(server: Server): Promise<{ session: http2.ClientHttp2Session; close(): Promise<void> }> {
  const pki = generateTestPki();
  const listener: HttpServer = await startHttpServer({
    tls: { certificate: pki.cert, key: pki.key },
    host: "127.0.0.1",
    port: 0,
    handler: server.server.handler,
  });
  const session = http2.connect(`https://127.0.0.1:${listener.port}`, { ca: pki.caCert, settings: { initialWindowSize: 4 << 20, enablePush: false } });
  session.on("error", () => {});
  await once(session, "connect");
  session.setLocalWindowSize(1 << 30);
  await fetchH2(session, "/version", { accept: "application/json" });
  return {
    session,
    async close() {
      session.close();
      await listener.stop(1000);
    },
  };
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
  let h2: Awaited<ReturnType<typeof h2Listener>> | undefined;
  const loadAtStart = loadavg()[0] ?? 0;
  try {
    // A client that installs definitions has asked for discovery before (kubectl does before an
    // apply): the first request timed after the last definition is then the first after the
    // change, not the first this process ever served of the kind (lazy compilation of that path).
    const warmDiscovery = await server.raw("GET", "/apis", { headers: { accept: DISCOVERY_ACCEPT, "accept-encoding": "gzip" } });
    if (warmDiscovery.status !== 200) throw new Error(`discovery before the install: ${warmDiscovery.status}`);
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
      // The client's connection is open (and used) before the last definition, as a running client's is.
      if (index === count - 1) h2 = await h2Listener(server);
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
    if (h2 === undefined) throw new Error("no HTTP/2 listener");
    const session = h2.session;
    // As kubectl asks (its Go transport adds Accept-Encoding: gzip).
    const gzip = { "accept-encoding": "gzip" };
    const getDiscovery = (encoding: Record<string, string> = gzip) => fetchH2(session, "/apis", { accept: DISCOVERY_ACCEPT, ...encoding });
    const openApiPath = `/openapi/v3/apis/${lastGroup}/v1`;
    const getOpenApi = () => fetchH2(session, openApiPath, { accept: "application/json", ...gzip });
    const discoveryFirst = await getDiscovery();
    const openApiFirst = await getOpenApi();
    const discoveryH2 = await nextFive(discoveryFirst, () => getDiscovery());
    const openApiH2 = await nextFive(openApiFirst, getOpenApi);
    const discoveryIdentity = await nextFive(await getDiscovery({}), () => getDiscovery({}));
    // What was served is what was asked for: the last group in discovery, its schema in OpenAPI.
    const decoded = (fetched: Fetched) => (fetched.encoding === "gzip" ? gunzipSync(fetched.body) : fetched.body).toString("utf8");
    if (!decoded(discoveryFirst).includes(`"name":"${lastGroup}"`)) throw new Error("the last group is not in aggregated discovery");
    if (!decoded(openApiFirst).includes(`"${lastGroup}"`)) throw new Error("the last group is not in its OpenAPI v3 document");
    await h2.close();
    h2 = undefined;
    // The server's own time, in process (no TLS, no HTTP/2 framing, no gzip), after the requests above.
    const serverTimes = async (path: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number }> => {
      const runs: { ms: number; bytes: number }[] = [];
      for (let index = 0; index < 5; index++) runs.push(await timed(() => server.raw("GET", path, { headers })));
      return { ms: median(runs.map((run) => run.ms)), bytes: runs[0]?.bytes ?? 0 };
    };
    const discovery = await serverTimes("/apis", { accept: DISCOVERY_ACCEPT });
    const openApi = await serverTimes(openApiPath, { accept: "application/json" });
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
      discoveryH2: discoveryH2,
      discoveryH2Identity: discoveryIdentity,
      openApiV3H2: openApiH2,
      discoveryInProcessMedianMs: round(discovery.ms),
      discoveryBytes: discovery.bytes,
      openApiV3InProcessMedianMs: round(openApi.ms),
      openApiV3Bytes: openApi.bytes,
      loadAverage: { start: round(loadAtStart), end: round(loadavg()[0] ?? 0) },
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
      `| aggregated discovery \`/apis\` over HTTP/2+TLS, gzip as kubectl asks (${round(discovery.bytes / 1024)} KB, ${round(discoveryH2.bytes / 1024)} KB ${discoveryH2.encoding}): first request after the last one is Established / median of the next 5 | ${discoveryH2.firstMs} / ${discoveryH2.nextMedianMs} ms (first: ${discoveryH2.firstCpuMs} ms CPU) | ≤ 50 ms |`,
      `| OpenAPI v3 of the last group version over HTTP/2+TLS, gzip (${round(openApi.bytes / 1024)} KB, ${round(openApiH2.bytes / 1024)} KB ${openApiH2.encoding}): first request / median of the next 5 | ${openApiH2.firstMs} / ${openApiH2.nextMedianMs} ms (first: ${openApiH2.firstCpuMs} ms CPU) | ≤ 50 ms |`,
      `| aggregated discovery over HTTP/2+TLS without gzip: first / median of the next 5 | ${discoveryIdentity.firstMs} / ${discoveryIdentity.nextMedianMs} ms | |`,
      `| server time in process (no TLS, no gzip), median of 5 after the above: discovery / OpenAPI v3 | ${results.discoveryInProcessMedianMs} / ${results.openApiV3InProcessMedianMs} ms | |`,
      `| custom object creates/s, c=16 (CEL rules declared), ${rounds} × ${total} after ${warmUp} of each to warm up | ${results.customCreatesPerSecond} | |`,
      `| ConfigMap creates/s, c=16, same run, in turn | ${results.configMapCreatesPerSecond} | |`,
      `| custom / ConfigMap creates/s | ${results.customToConfigMapPercent} % | ≥ 70 % |`,
      `| CPU per create: custom / ConfigMap (µs, whole process) | ${results.customCpuMicrosPerCreate} / ${results.configMapCpuMicrosPerCreate} (ConfigMap = ${results.cpuRatioPercent} % of custom) | |`,
      `| objects compared, as served after create (JSON bytes): custom / ConfigMap | ${customBytes} / ${configMapBytes} | |`,
      `| load average (1 min) at start / end | ${results.loadAverage.start} / ${results.loadAverage.end} | quiet: < 2 |`,
      "",
    ].join("\n");
    writeFileSync(join(options.outDir, `${stem}.md`), markdown);
    process.stdout.write(markdown);
  } finally {
    await h2?.close();
    await server.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }
}
