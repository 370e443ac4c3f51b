/**
 * Scale suite (issue #21): the CLI as a child process (sqlite) with 1,000, 10,000 and 100,000
 * ConfigMaps of ~1 KiB, and the watch cache's namespace index in process.
 *
 *   npm run bench -- --suite scale [--scale-objects 100000]   writes bench/results/<date>-scale.{json,md}
 *   npm run bench -- --suite scale --scale-large-only         only the 1,000-object rates and the large store
 *                                                             (restarts, lists, rates): <date>-scale-large.{json,md}
 *   npm run bench -- --suite scale --scale-start   only the start-up and idle RSS rows (empty, 10k): <date>-scale-start.*
 *   npm run bench -- --suite scale --scale-lists   only the lists of the 10k store (whole and paged): <date>-scale-lists.*
 *
 * Rows, each with its target and, where one applies, a limit measured in the same run:
 * - start → first /readyz 200 (spawn to 200, polled every 5 ms), empty store and 10k / 100k objects,
 *   median of 3 restarts, with the CLI's own breakdown ("start-up since launch: …");
 * - RSS idle (10 s after ready: the server collects its start-up garbage 1 s after ready and shrinks its young generation 7–8 s after) with 10k and 100k objects, and a heap snapshot summary of the 10k
 *   server: live heap, bytes per cached object by field;
 * - LIST of 10k and 100k: consistent and rv=0, whole and paged (limit=500, continue followed),
 *   request → last byte, median, with the server's CPU per list (schedstat); the limits: the same
 *   client fetching a prebuilt body of the same size from a bare node:http2 server, and for a paged
 *   list the same bytes as as many sequential requests as it had pages (what a page costs a bare
 *   server: the h2 + TLS round trip, the part of paging no API server can remove);
 * - GET c=64 and create c=16 rates with 1,000 and with 100,000 objects in the store, with the server's
 *   CPU per operation (user + system of the process, /proc: far less sensitive to a shared machine
 *   than the rate); the limit: the bare server's GET rate;
 * - the watcher index: 1,000 namespaces × 100 objects, 1,000 watchers on different namespaces:
 *   filter evaluations and µs per event, against the same events with no watcher (the floor).
 * The machine may be shared: every figure is noisy then; rerun on a quiet machine with the one
 * command above (`--quick` is a smoke run with 2,000 objects).
 */
import { once } from "node:events";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { ApiObject } from "../src/api/object.js";
import type { ResourceCodec } from "../src/registry/cacher/cached-object.js";
import { WatchCache } from "../src/registry/cacher/watch-cache.js";
import { type Client, h2Client } from "./lib/client.js";
import { machineEnvironment } from "./lib/environment.js";
import { analyseHeapSnapshot, type HeapSummary } from "./lib/heap-snapshot.js";
import { itemName, loadConfigMaps, timeLists, type ListTiming, type ListVariant } from "./lib/lists.js";
import { configMapBody, namespaceBody } from "./lib/objects.js";
import { makeTempDir, type MemoryMap, memoryMap, processCpuSeconds, removeTempDir } from "./lib/processes.js";
import { adminCredentials, REPO_ROOT, type ServerChild, startServerChild } from "./lib/server.js";
import { median, round } from "./lib/stats.js";

export interface ScaleSuiteOptions {
  readonly quick: boolean;
  readonly outDir: string;
  /** The large scenario's object count (default 100,000). */
  readonly objects: number;
  /** Only the 1,000-object rates and the large store: no empty or 10k restarts, no heap snapshot, no 10k lists. */
  readonly largeOnly?: boolean;
  /** Only the start-up and idle-memory rows: empty store and 10k (`--scale-start`, ~1 min). */
  readonly startOnly?: boolean;
  /** Only the lists of the 10k store, each with the server's CPU and the bare limits (`--scale-lists`, ~1 min). */
  readonly listsOnly?: boolean;
}

const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const BODY_BYTES = 1024;
const READY_TIMEOUT_MS = 300_000;
const IDLE_WAIT_MS = 10_000;
const NAMESPACE = "bench";
const COLLECTION = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

/** Targets of issue #21 (ms, MiB, ratios). */
const TARGETS = {
  readyEmptyMs: 300,
  ready10kMs: 1000,
  ready100kMs: 3000,
  rss10kMB: 100,
  rss100kMB: 600,
  pagedOverWhole: 1.2,
  whole100kMs: 1300,
  paged100kMs: 1500,
  rateWithin: 0.2,
};

/** A list timing with its limits: the bare body in one request and, for a paged list, in as many requests as it had pages. */
type ListRow = ListTiming & { readonly objects: number; readonly limitMs: number; readonly limitPagesMs?: number };

interface Start {
  readonly objects: number;
  readonly readyMs: readonly number[];
  readonly medianMs: number;
  /** The server's CPU time (all threads) when its first /readyz 200 arrived, per restart. */
  readonly cpuMs: readonly number[];
  readonly breakdown: string;
  readonly rssMB: number;
  /** Where the idle RSS is (from /proc/<pid>/smaps). */
  readonly memory: MemoryMap;
}

interface Rate {
  readonly name: string;
  readonly objects: number;
  readonly perSecond: number;
  readonly concurrency: number;
  /** The server's CPU (user + system) per operation, µs. */
  readonly cpuMicrosPerOp?: number;
}

interface WatcherIndexRow {
  readonly namespaces: number;
  readonly watchers: number;
  readonly events: number;
  readonly evaluationsPerEvent: number;
  readonly microsPerEvent: number;
  readonly floorMicrosPerEvent: number;
}

interface ScaleResults {
  readonly name: "scale";
  /** The command that reruns this suite as it ran. */
  readonly command?: string;
  readonly date: string;
  readonly environment: Record<string, string | number>;
  readonly objects: number;
  readonly starts: readonly Start[];
  readonly lists: readonly ListRow[];
  readonly rates: readonly Rate[];
  readonly bareGetPerSecond: number;
  readonly heap?: HeapSummary;
  readonly watcherIndex?: WatcherIndexRow;
  /** Why the run stopped before its last phase, if it did. */
  readonly failure?: string;
}

/** Restarts the server `times` times on the data dir; spawn → /readyz 200 each, RSS after the last. */
async function restarts(
  dataDir: string,
  objects: number,
  times: number,
  nodeArgs: readonly string[] = [],
  cwd?: string,
): Promise<{ server: ServerChild; start: Start }> {
  const readyMs: number[] = [];
  const cpuMs: number[] = [];
  let server: ServerChild | undefined;
  for (let index = 0; index < times; index++) {
    if (server !== undefined) await server.stop();
    server = await startServerChild({ dataDir, nodeArgs, readyTimeoutMs: READY_TIMEOUT_MS, ...(cwd === undefined ? {} : { cwd }) });
    cpuMs.push(Math.round(processCpuSeconds(server.pid) * 1000));
    readyMs.push(round(server.readyMs));
  }
  if (server === undefined) throw new Error("no start");
  // Idle: after the server has collected its start-up garbage and shrunk its young generation (by 8 s after ready), settled.
  await sleep(IDLE_WAIT_MS);
  const memory = memoryMap(server.pid);
  const rssMB = memory.rssMB;
  const breakdown = /start-up since launch: (.*)/.exec(server.output())?.[1] ?? "";
  const start: Start = { objects, readyMs, medianMs: round(median(readyMs)), cpuMs, breakdown, rssMB, memory };
  log(`  ${objects} objects: ready ${readyMs.join(" / ")} ms (CPU ${cpuMs.join(" / ")} ms), RSS idle ${rssMB} MiB ${JSON.stringify(memory)}; ${breakdown}`);
  return { server, start };
}

async function connect(server: ServerChild): Promise<Client> {
  return h2Client({ host: server.host, port: server.port, credentials: adminCredentials(server.dataDir) });
}

/** Closed-loop rate of `operation` at `concurrency` for `ms`; with `pid`, that process's CPU per operation too. */
async function rate(concurrency: number, ms: number, operation: (index: number) => Promise<void>, pid?: number): Promise<number> {
  return (await measuredRate(concurrency, ms, operation, pid)).perSecond;
}

async function measuredRate(
  concurrency: number,
  ms: number,
  operation: (index: number) => Promise<void>,
  pid?: number,
): Promise<{ perSecond: number; cpuMicrosPerOp: number }> {
  let next = 0;
  let done = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  const cpuBefore = pid === undefined ? 0 : processCpuSeconds(pid);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await operation(next++);
        done++;
      }
    }),
  );
  const cpuMicrosPerOp = pid === undefined || done === 0 ? Number.NaN : ((processCpuSeconds(pid) - cpuBefore) * 1e6) / done;
  return { perSecond: done / ((performance.now() - started) / 1000), cpuMicrosPerOp };
}

async function rates(client: Client, pid: number, objects: number, existing: number, ms: number, tag: string): Promise<Rate[]> {
  const get = await measuredRate(
    64,
    ms,
    async (index) => {
      const reply = await client.request("GET", `${COLLECTION}/${itemName(index % existing)}`);
      if (reply.status !== 200) throw new Error(`GET: HTTP ${reply.status}`);
    },
    pid,
  );
  const create = await measuredRate(
    16,
    ms,
    async (index) => {
      const reply = await client.request(
        "POST",
        `/api/v1/namespaces/${NAMESPACE}-writes/configmaps`,
        configMapBody(`${NAMESPACE}-writes`, `${tag}-${index}`, BODY_BYTES),
      );
      if (reply.status !== 201) throw new Error(`create: HTTP ${reply.status}`);
    },
    pid,
  );
  log(
    `  rates with ${objects} objects: GET ${round(get.perSecond)}/s (c=64, server ${round(get.cpuMicrosPerOp)} µs CPU each), create ${round(create.perSecond)}/s (c=16, ${round(create.cpuMicrosPerOp)} µs CPU each)`,
  );
  return [
    { name: "GET", objects, perSecond: round(get.perSecond), concurrency: 64, cpuMicrosPerOp: round(get.cpuMicrosPerOp) },
    { name: "create", objects, perSecond: round(create.perSecond), concurrency: 16, cpuMicrosPerOp: round(create.cpuMicrosPerOp) },
  ];
}

/**
 * A bare node:http2 server answering every request with `body` (`/?bytes=N`: its first N bytes);
 * the client and TLS of the run, nothing else.
 */
async function bareServer(body: Buffer, server: ServerChild): Promise<{ readonly port: number; close(): void }> {
  const pki = join(server.dataDir, "pki");
  const tls = { cert: readFileSync(join(pki, "serving.crt"), "utf8"), key: readFileSync(join(pki, "serving.key"), "utf8"), allowHTTP1: true };
  const bare = http2.createSecureServer(tls, (request, response) => {
    request.resume();
    const asked = /[?&]bytes=(\d+)/.exec(request.url)?.[1];
    const answer = asked === undefined ? body : body.subarray(0, Number(asked));
    response.writeHead(200, { "content-type": "application/json", "content-length": String(answer.length) });
    response.end(answer);
  });
  bare.listen(0, "127.0.0.1");
  await once(bare, "listening");
  return { port: (bare.address() as AddressInfo).port, close: () => bare.close() };
}

/**
 * The client fetching `bytes` from a bare server: what a list of that size costs without the API
 * server, in one request and (pages > 1) split into `pages` sequential requests (median of 5 each).
 */
async function listLimit(server: ServerChild, bytes: number, pages: number): Promise<{ readonly bodyMs: number; readonly pagesMs?: number }> {
  const bare = await bareServer(Buffer.alloc(bytes, 0x20), server);
  const client = await h2Client({ host: "127.0.0.1", port: bare.port });
  const timed = async (requests: number): Promise<number> => {
    const runs: number[] = [];
    const pageBytes = Math.ceil(bytes / requests);
    for (let index = 0; index < 6; index++) {
      const started = performance.now();
      for (let page = 0; page < requests; page++) await client.request("GET", requests === 1 ? "/" : `/?bytes=${pageBytes}`, undefined, true);
      if (index > 0) runs.push(performance.now() - started);
    }
    return round(median(runs));
  };
  try {
    const bodyMs = await timed(1);
    return pages > 1 ? { bodyMs, pagesMs: await timed(pages) } : { bodyMs };
  } finally {
    client.close();
    bare.close();
  }
}

async function bareGetRate(server: ServerChild, ms: number): Promise<number> {
  const bare = await bareServer(Buffer.from(configMapBody(NAMESPACE, "bare", BODY_BYTES)), server);
  const client = await h2Client({ host: "127.0.0.1", port: bare.port });
  try {
    return round(
      await rate(64, ms, async () => {
        await client.request("GET", "/");
      }),
    );
  } finally {
    client.close();
    bare.close();
  }
}

async function lists(client: Client, server: ServerChild, objects: number, runs: number): Promise<ListRow[]> {
  const rows: ListRow[] = [];
  for (const variant of ["consistent", "rv0"] as ListVariant[]) {
    for (const limit of [0, 500]) {
      // The namespace also holds its root-CA ConfigMap.
      const timing = await timeLists(client, "h2", COLLECTION, variant, limit, runs, 1, objects + 1, server.pid);
      const limits = await listLimit(server, Math.round(timing.bodyMiB * (1 << 20)), timing.pages);
      rows.push({ ...timing, objects, limitMs: limits.bodyMs, ...(limits.pagesMs === undefined ? {} : { limitPagesMs: limits.pagesMs }) });
      log(
        `  list ${objects} ${variant} ${limit === 0 ? "whole" : `paged ${limit}`}: ${timing.medianMs} ms, server CPU ${timing.serverCpuMs} ms (${timing.pages} pages; bare body ${limits.bodyMs} ms${limits.pagesMs === undefined ? "" : `, bare pages ${limits.pagesMs} ms`})`,
      );
    }
  }
  return rows;
}

/** `--scale-lists`: the 10k store loaded, the server restarted, its lists timed (whole and paged). */
async function listsOnly(dataDir: string, objects: number, runs: number): Promise<ListRow[]> {
  let server = await startServerChild({ dataDir, readyTimeoutMs: READY_TIMEOUT_MS });
  let client = await connect(server);
  await client.request("POST", "/api/v1/namespaces", namespaceBody(NAMESPACE));
  const loaded = await loadConfigMaps(client, NAMESPACE, 0, objects, 32, BODY_BYTES);
  log(`  loaded ${objects} at ${loaded.perSecond}/s`);
  client.close();
  await server.stop();
  server = await startServerChild({ dataDir, readyTimeoutMs: READY_TIMEOUT_MS });
  client = await connect(server);
  try {
    return await lists(client, server, objects, runs);
  } finally {
    client.close();
    await server.stop();
  }
}

/** SIGUSR2 → node writes Heap.*.heapsnapshot into its working directory; waits until it is complete. */
async function heapSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  let lastSize = -1;
  let stableSince = performance.now();
  const deadline = performance.now() + 120_000;
  for (;;) {
    if (performance.now() > deadline) throw new Error("no heap snapshot within 120 s");
    await sleep(250);
    const file = readdirSync(dir).find((entry) => entry.endsWith(".heapsnapshot") && !before.has(entry));
    if (file === undefined) continue;
    const size = statSync(join(dir, file)).size;
    if (size !== lastSize) {
      lastSize = size;
      stableSince = performance.now();
    } else if (performance.now() - stableSince > 750 && size > 0) return join(dir, file);
  }
}

/** The namespace index in process: 1,000 namespaces × 100 objects, 1,000 watchers, one per namespace. */
function watcherIndexRow(namespaces: number, perNamespace: number): WatcherIndexRow {
  const prefix = "/core/configmaps/";
  const codec: ResourceCodec = {
    decode: (value, revision) => {
      const object = JSON.parse(value) as ApiObject;
      object.metadata.resourceVersion = String(revision);
      return object;
    },
    extraFieldsOf: () => undefined,
    kind: "ConfigMap",
    apiVersion: "v1",
  };
  const body = (namespace: string, name: string): string => configMapBody(namespace, name, 256);
  const run = (watchers: boolean): { micros: number; evaluations: number; events: number } => {
    const cache = new WatchCache(prefix, codec, { windowSize: 1000, windowMs: 60_000, watcherQueueLimit: 1 << 30 });
    const names = Array.from({ length: namespaces }, (_, index) => `ns-${index}`);
    if (watchers) {
      for (const namespace of names) {
        const watcher = cache.watch({ prefix: `${prefix}${namespace}/`, labelSelector: [], fieldSelector: [] }, { kind: "revision", revision: 0 }, 0, {});
        void watcher?.attach({ write: () => true, onDrain: () => () => {} });
      }
    }
    let revision = 0;
    const started = performance.now();
    for (let object = 0; object < perNamespace; object++) {
      for (const namespace of names) {
        const name = `cm-${object}`;
        cache.apply({ type: "ADDED", key: `${prefix}${namespace}/${name}`, revision: ++revision, value: body(namespace, name), previous: undefined });
      }
      cache.flush();
    }
    return { micros: ((performance.now() - started) * 1000) / revision, evaluations: cache.filterEvaluations, events: revision };
  };
  const floor = run(false);
  const indexed = run(true);
  const row = {
    namespaces,
    watchers: namespaces,
    events: indexed.events,
    evaluationsPerEvent: round(indexed.evaluations / indexed.events),
    microsPerEvent: round(indexed.micros),
    floorMicrosPerEvent: round(floor.micros),
  };
  log(
    `  watcher index: ${row.evaluationsPerEvent} filter evaluations per event, ${row.microsPerEvent} µs/event (no watchers: ${row.floorMicrosPerEvent} µs/event)`,
  );
  return row;
}

export async function runScaleSuite(options: ScaleSuiteOptions): Promise<void> {
  const large = options.quick ? 2000 : options.objects;
  const medium = Math.min(10_000, large);
  const small = Math.min(1000, medium);
  const rateMs = options.quick ? 1500 : 5000;
  const listRuns = options.quick ? 2 : 5;
  const root = makeTempDir("orch-scale-");
  const dataDir = join(root, "data");
  const snapshotDir = join(root, "snapshots");
  mkdirSync(snapshotDir, { recursive: true });
  const starts: Start[] = [];
  const listRows: ListRow[] = [];
  const rateRows: Rate[] = [];
  let heap: HeapSummary | undefined;
  let bareGet = Number.NaN;
  let failure: string | undefined;
  log(`scale suite: ${large} objects of ~${BODY_BYTES} B (the machine may be shared: figures are noisy then)`);
  try {
    if (options.listsOnly === true) listRows.push(...(await listsOnly(dataDir, medium, listRuns)));
    else {
      // Empty store (its own data dir): the first start makes the certificates; the restarts are
      // measured. Then the 1,000-object rates there, so the creates do not grow the big store.
      const smallDir = join(root, "small");
      await (await startServerChild({ dataDir: smallDir, readyTimeoutMs: READY_TIMEOUT_MS })).stop();
      let server: ServerChild;
      let start: Start;
      if (options.largeOnly === true) server = await startServerChild({ dataDir: smallDir, readyTimeoutMs: READY_TIMEOUT_MS });
      else {
        ({ server, start } = await restarts(smallDir, 0, 3));
        starts.push(start);
      }
      let client = await connect(server);
      if (options.startOnly !== true) {
        for (const namespace of [NAMESPACE, `${NAMESPACE}-writes`]) await client.request("POST", "/api/v1/namespaces", namespaceBody(namespace));
        await loadConfigMaps(client, NAMESPACE, 0, small, 32, BODY_BYTES);
        rateRows.push(...(await rates(client, server.pid, small, small, rateMs, "small")));
        bareGet = await bareGetRate(server, rateMs);
        log(`  bare h2 GET limit: ${bareGet}/s`);
      }
      client.close();
      await server.stop();

      server = await startServerChild({ dataDir, readyTimeoutMs: READY_TIMEOUT_MS });
      client = await connect(server);
      for (const namespace of [NAMESPACE, `${NAMESPACE}-writes`]) await client.request("POST", "/api/v1/namespaces", namespaceBody(namespace));
      // Large only: straight to the large store, on this server.
      const first = options.largeOnly === true ? large : medium;
      const loaded = await loadConfigMaps(client, NAMESPACE, 0, first, 32, BODY_BYTES);
      log(`  loaded ${first} at ${loaded.perSecond}/s`);
      client.close();
      await server.stop();

      if (options.largeOnly !== true) {
        ({ server, start } = await restarts(dataDir, medium, 3, ["--heapsnapshot-signal=SIGUSR2"], snapshotDir));
        starts.push(start);
        try {
          heap = analyseHeapSnapshot(await heapSnapshot(server.pid, snapshotDir));
          log(`  heap: live ${heap.liveHeapMiB} MiB, ${heap.cachedObjects} cached objects, ${heap.cachedObjectBytesPerObject} B per cached object`);
        } catch (error) {
          log(`  heap snapshot failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        client = await connect(server);
        if (options.startOnly !== true) listRows.push(...(await lists(client, server, medium, listRuns)));
        if (large > medium && options.startOnly !== true) {
          const more = await loadConfigMaps(client, NAMESPACE, medium, large, 32, BODY_BYTES);
          log(`  loaded ${large} at ${more.perSecond}/s`);
        }
        client.close();
        await server.stop();
      }
      if ((large > medium || options.largeOnly === true) && options.startOnly !== true) {
        ({ server, start } = await restarts(dataDir, large, 3));
        starts.push(start);
        client = await connect(server);
        listRows.push(...(await lists(client, server, large, options.quick ? 2 : 3)));
        rateRows.push(...(await rates(client, server.pid, large, large, rateMs, "large")));
      }
      client.close();
      await server.stop();
    }
  } catch (error) {
    // A phase that fails (a start past its deadline on a busy machine) leaves the rows measured so far.
    failure = error instanceof Error ? error.message.split("\n")[0] : String(error);
    log(`  stopped early: ${failure}`);
  } finally {
    removeTempDir(root);
  }
  const watcherIndex = options.startOnly === true || options.listsOnly === true ? undefined : watcherIndexRow(options.quick ? 100 : 1000, 100);
  const results: ScaleResults = {
    name: "scale",
    command: `npm run bench -- --suite scale${options.objects === 100_000 ? "" : ` --scale-objects ${options.objects}`}${options.largeOnly === true ? " --scale-large-only" : ""}${options.startOnly === true ? " --scale-start" : ""}${options.listsOnly === true ? " --scale-lists" : ""}${options.quick ? " --quick" : ""}`,
    date: new Date().toISOString(),
    environment: machineEnvironment(REPO_ROOT),
    objects: large,
    starts,
    lists: listRows,
    rates: rateRows,
    bareGetPerSecond: bareGet,
    ...(heap === undefined ? {} : { heap }),
    ...(watcherIndex === undefined ? {} : { watcherIndex }),
    ...(failure === undefined ? {} : { failure }),
  };
  mkdirSync(options.outDir, { recursive: true });
  const base = join(
    options.outDir,
    `${results.date.slice(0, 10)}-scale${options.largeOnly === true ? "-large" : ""}${options.startOnly === true ? "-start" : ""}${options.listsOnly === true ? "-lists" : ""}${options.quick ? "-quick" : ""}`,
  );
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${base}.md`, renderScale(results));
  log(`wrote ${base}.json and .md`);
}

function ratio(value: number, target: number): string {
  return Number.isFinite(value) ? `${round(value / target)}` : "";
}

function renderScale(results: ScaleResults): string {
  const lines: string[] = [
    `# Scale suite — ${results.date}`,
    "",
    `\`${results.command ?? "npm run bench -- --suite scale"}\` (issue #21). The CLI as a child process, sqlite backend, ConfigMaps of ~1 KiB in one namespace,`,
    "HTTP/2 with the admin client certificate. **The machine may have been shared with other work while this ran: figures are noisy;",
    "rerun quietly with the same command.** Ratios: value / target (≤ 1 meets it) and value / the bare limit of the same run.",
    "",
    `Environment: ${Object.entries(results.environment)
      .map(([key, value]) => `${key} ${value}`)
      .join(", ")}`,
    "",
    ...(results.failure === undefined ? [] : [`**The run stopped early: ${results.failure}.** The rows below are those measured before.`, ""]),
  ];
  if (results.starts.length > 0) renderStarts(results, lines);
  if (results.lists.length > 0) renderLists(results, lines);
  if (results.rates.length > 0) renderRates(results, lines);
  renderTail(results, lines);
  return `${lines.join("\n")}\n`;
}

function renderStarts(results: ScaleResults, lines: string[]): void {
  lines.push(
    "## Start → first /readyz 200",
    "",
    "| objects | runs (ms) | median | target | ratio | CPU at ready (ms) | RSS idle (MiB) | RSS target | CLI breakdown (ms since launch) |",
    "|---|---|---|---|---|---|---|---|---|",
  );
  for (const start of results.starts) {
    const target = start.objects === 0 ? TARGETS.readyEmptyMs : start.objects <= 10_000 ? TARGETS.ready10kMs : TARGETS.ready100kMs;
    const rssTarget = start.objects === 0 ? undefined : start.objects <= 10_000 ? TARGETS.rss10kMB : TARGETS.rss100kMB;
    lines.push(
      `| ${start.objects} | ${start.readyMs.join(" / ")} | ${start.medianMs} | ${target} | ${ratio(start.medianMs, target)} | ${start.cpuMs.join(" / ")} | ${start.rssMB} | ${rssTarget === undefined ? "" : `${rssTarget} (${ratio(start.rssMB, rssTarget)})`} | ${start.breakdown} |`,
    );
  }
  lines.push(
    "",
    "Idle RSS by kind of mapping (MiB, /proc/<pid>/smaps): the node binary's pages are file-backed and shared with every node process;",
    "malloc's main heap holds SQLite's page cache, OpenSSL's and node's allocations; thread arenas are malloc's per-thread heaps (V8's",
    "compiler and GC threads); the other anonymous memory is mostly V8's heap.",
    "",
    "| objects | RSS | node binary | other files | malloc heap | thread arenas | other anonymous (V8 heap, stacks) |",
    "|---|---|---|---|---|---|---|",
    ...results.starts.map(
      ({ objects, memory: m }) =>
        `| ${objects} | ${m.rssMB} | ${m.nodeBinaryMB} | ${m.otherFilesMB} | ${m.mallocHeapMB} | ${m.threadArenasMB} | ${m.otherAnonymousMB} |`,
    ),
    "",
  );
}

function renderLists(results: ScaleResults, lines: string[]): void {
  lines.push(
    "## Lists (request → last byte, median)",
    "",
    "Server CPU: all the server's threads (schedstat) per list, whole or all its pages. Bare pages: the bare server's body split",
    "into as many sequential requests as the list had pages; paged ÷ whole: of the wall time, of the server's CPU, and of the bare",
    "server's time (bare pages ÷ bare body: what paging costs the h2 + TLS round trips alone).",
    "",
    "| objects | variant | paging | pages | ms | server CPU (ms) | bare body (ms) | ÷ bare | bare pages (ms) | paged ÷ whole: wall / CPU / bare | target | ratio |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const row of results.lists) {
    const whole = results.lists.find((other) => other.objects === row.objects && other.variant === row.variant && !other.paged);
    let target: number | undefined;
    if (row.paged && whole !== undefined) target = TARGETS.pagedOverWhole * whole.medianMs;
    if (row.objects >= 100_000 && row.variant === "consistent") target = row.paged ? TARGETS.paged100kMs : TARGETS.whole100kMs;
    const overWhole =
      row.pages > 1 && whole !== undefined
        ? `${ratio(row.medianMs, whole.medianMs)} / ${row.serverCpuMs === undefined || whole.serverCpuMs === undefined ? "" : ratio(row.serverCpuMs, whole.serverCpuMs)} / ${row.limitPagesMs === undefined ? "" : ratio(row.limitPagesMs, row.limitMs)}`
        : "";
    lines.push(
      `| ${row.objects} | ${row.variant} | ${row.paged ? "limit=500" : "whole"} | ${row.pages} | ${row.medianMs} | ${row.serverCpuMs ?? ""} | ${row.limitMs} | ${ratio(row.medianMs, row.limitMs)} | ${row.limitPagesMs ?? ""} | ${overWhole} | ${target === undefined ? "" : round(target)} | ${target === undefined ? "" : ratio(row.medianMs, target)} |`,
    );
  }
  lines.push("");
}

function renderRates(results: ScaleResults, lines: string[]): void {
  lines.push(
    `## Rates (closed loop; bare h2 GET limit ${results.bareGetPerSecond}/s)`,
    "",
    "| operation | objects | c | per second | vs the smallest store | server CPU per op (µs) | CPU vs the smallest store |",
    "|---|---|---|---|---|---|---|",
  );
  for (const row of results.rates) {
    const baseRow = results.rates.find((other) => other.name === row.name);
    const change = baseRow === undefined ? Number.NaN : row.perSecond / baseRow.perSecond - 1;
    const cpuChange = baseRow?.cpuMicrosPerOp === undefined || row.cpuMicrosPerOp === undefined ? Number.NaN : row.cpuMicrosPerOp / baseRow.cpuMicrosPerOp - 1;
    lines.push(
      `| ${row.name} | ${row.objects} | ${row.concurrency} | ${row.perSecond} | ${Number.isFinite(change) ? `${round(change * 100)} % (target ≥ -${TARGETS.rateWithin * 100} %)` : ""} | ${row.cpuMicrosPerOp ?? ""} | ${Number.isFinite(cpuChange) ? `${round(cpuChange * 100)} %` : ""} |`,
    );
  }
  lines.push("");
}

/** The heap snapshot's summary and the watcher index, when measured. */
function renderTail(results: ScaleResults, lines: string[]): void {
  const heap = results.heap;
  if (heap !== undefined) {
    lines.push(
      "## Heap of the server with the medium store (heap snapshot after a full GC)",
      "",
      `Live heap ${heap.liveHeapMiB} MiB; ${heap.cachedObjects} cached objects, ${heap.cachedObjectBytesPerObject} B each by field; the cache's containers ${heap.containerBytesPerObject} B per object.`,
      "",
      "| field of a cached object | bytes per object |",
      "|---|---|",
      ...heap.cachedObjectFields.map((row) => `| ${row.field} | ${row.bytesPerObject} |`),
      "",
      "| constructor | count | MiB |",
      "|---|---|---|",
      ...heap.byConstructor.slice(0, 10).map((row) => `| ${row.name} | ${row.count} | ${row.MiB} |`),
      "",
    );
  }
  const index = results.watcherIndex;
  if (index === undefined) return;
  lines.push(
    "## Watchers indexed by namespace (in process)",
    "",
    `${index.namespaces} namespaces × ${index.events / index.namespaces} objects, ${index.watchers} watchers, one per namespace: ${index.evaluationsPerEvent} filter evaluations per event (a scan: ${index.watchers}), ${index.microsPerEvent} µs per event against ${index.floorMicrosPerEvent} µs with no watcher (÷ floor ${ratio(index.microsPerEvent, index.floorMicrosPerEvent)}).`,
  );
}
