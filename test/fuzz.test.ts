// The fuzzer (issue #20): ≥ 10,000 hostile requests (ORCH_FUZZ_REQUESTS) against the CLI over
// HTTP/2 — fast-check arbitraries plus mutations of real request bodies, across every verb and
// content type. Every answer is a success or a Status with its 4xx code: never a 5xx, never a
// crash, never a hang; the server's live memory (V8 heap plus the buffers it owns, from /metrics)
// returns near its baseline afterwards. RSS is reported, not asserted: glibc keeps the freed pages
// of a burst of big bodies in its arenas (see README, "Reliability"), which is not a leak.
// ORCH_FUZZ_SEED replays a run; ORCH_FUZZ_REPORT receives the figures.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { sample } from "../src/testing/metrics-text.js";
import { startCli, type CliServer } from "./helpers/cli.js";
import { credentialsFromKubeconfig, type Credentials } from "./helpers/http.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const REQUESTS = Number(process.env["ORCH_FUZZ_REQUESTS"] ?? "10000");
const SEED = Number(process.env["ORCH_FUZZ_SEED"] ?? String(Date.now() % 1_000_000));
const REPORT = process.env["ORCH_FUZZ_REPORT"];
const NAMESPACE = "fuzz";
/** How much more live memory than at the start the server may hold after the run (see the assertion). */
const LIVE_MEMORY_MARGIN = 64 * 1048576;
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;

/** One request the fuzzer sends. `category` groups the figures. */
interface FuzzRequest {
  readonly category: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
}

const CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/json-patch+json",
  "application/apply-patch+yaml",
  "text/plain",
  "application/cbor",
];
const PATCH_TYPES = CONTENT_TYPES.slice(3, 7);

const CONFIG_MAP = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "seed", labels: { app: "fuzz" } }, data: { a: "1" } };
const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "seed" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 80 }] }] } },
  },
};

/** A real body changed at one random place: a field dropped, a value replaced, a type changed. */
function mutate(value: unknown, random: () => number, replacement: unknown): unknown {
  if (typeof value !== "object" || value === null) return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return replacement;
  const key = keys[Math.floor(random() * keys.length)] as string;
  const record = copy as Record<string, unknown>;
  const roll = random();
  if (roll < 0.15) delete record[key];
  else if (roll < 0.45) record[key] = replacement;
  else record[key] = mutate(record[key], random, replacement);
  return copy;
}

function nested(depth: number, open: string, close: string, leaf: string): string {
  return `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
}

/** The fuzzer's request arbitraries, by category. */
function arbitraries(): fc.Arbitrary<FuzzRequest>[] {
  const name = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.constantFrom("..", ".", "a/b", "%2F", "A", "-a", "a".repeat(300), "\u0000", "ü"),
    fc.stringMatching(/^[a-z0-9.-]{1,70}$/),
  );
  const contentType = fc.constantFrom(...CONTENT_TYPES);
  const verbPath = fc.constantFrom<[string, string]>(
    ["POST", CONFIGMAPS],
    ["PUT", `${CONFIGMAPS}/seed`],
    ["PATCH", `${CONFIGMAPS}/seed`],
    ["POST", DEPLOYMENTS],
    ["PUT", `${DEPLOYMENTS}/seed`],
    ["PATCH", `${DEPLOYMENTS}/seed`],
    ["PATCH", `${DEPLOYMENTS}/seed/scale`],
    ["PUT", `${DEPLOYMENTS}/seed/status`],
    ["DELETE", `${CONFIGMAPS}/absent`],
    ["DELETE", CONFIGMAPS],
    ["POST", "/api/v1/namespaces"],
  );
  const malformed = fc
    .record({ target: verbPath, type: contentType, body: fc.oneof(fc.string({ maxLength: 2000 }), fc.uint8Array({ maxLength: 2000 }), fc.json()) })
    .map(
      ({ target, type, body }): FuzzRequest => ({ category: "malformed body", method: target[0], path: target[1], headers: { "content-type": type }, body }),
    );
  const mutated = fc
    .record({ target: verbPath, type: contentType, seed: fc.integer(), replacement: fc.jsonValue(), deployment: fc.boolean(), cut: fc.option(fc.nat(400)) })
    .map(({ target, type, seed, replacement, deployment, cut }): FuzzRequest => {
      let state = seed;
      const random = (): number => {
        state = (Math.imul(state, 1103515245) + 12345) | 0;
        return ((state >>> 8) & 0xffff) / 0x10000;
      };
      let text = JSON.stringify(mutate(deployment ? DEPLOYMENT : CONFIG_MAP, random, replacement));
      if (cut !== null) text = text.slice(0, cut);
      return { category: "mutated real body", method: target[0], path: target[1], headers: { "content-type": type }, body: text };
    });
  const patches = fc
    .record({
      type: fc.constantFrom(...PATCH_TYPES),
      operations: fc.array(
        fc.record({
          op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"),
          path: fc.oneof(fc.string(), fc.constantFrom("/data/a", "/metadata/name", "/spec/replicas", "/", "/data/-", "/metadata/labels/~1x")),
          value: fc.jsonValue(),
          from: fc.string(),
        }),
        { maxLength: 5 },
      ),
      kind: fc.constantFrom(CONFIGMAPS, DEPLOYMENTS),
      query: fc.constantFrom("", "?fieldManager=fuzz", "?force=true", "?fieldManager=fuzz&force=maybe", "?dryRun=All"),
    })
    .map(
      ({ type, operations, kind, query }): FuzzRequest => ({
        category: "patch",
        method: "PATCH",
        path: `${kind}/seed${query}`,
        headers: { "content-type": type },
        body: JSON.stringify(
          type === "application/json-patch+json" ? operations : Object.fromEntries(operations.map((operation) => [operation.path, operation.value])),
        ),
      }),
    );
  const deep = fc
    .record({
      // kube's decoders stop at 10,000 levels: depths on both sides of the limit, and far past it.
      depth: fc.constantFrom(100, 997, 1_001, 3_000, 9_998, 9_999, 10_000, 10_001, 10_002, 30_101, 100_000, 1_000_000),
      type: contentType,
      shape: fc.constantFrom("array", "object", "data", "yaml", "yaml-flow"),
      method: fc.constantFrom("POST", "PATCH"),
    })
    .map(({ depth, type, shape, method }): FuzzRequest => {
      const body =
        shape === "array"
          ? nested(depth, "[", "]", "1")
          : shape === "object"
            ? nested(depth, '{"a":', "}", "1")
            : shape === "data"
              ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","annotations":${nested(depth, '{"a":', "}", '"x"')}}}`
              : shape === "yaml-flow"
                ? `data: ${nested(Math.min(depth, 200_000), "{a: ", "}", "x")}`
                : `${"- ".repeat(Math.min(depth, 200_000))}x`;
      const path = method === "POST" ? CONFIGMAPS : `${CONFIGMAPS}/seed`;
      return { category: "deep nesting", method, path, headers: { "content-type": type }, body };
    });
  const huge = fc
    .record({ size: fc.constantFrom(1_000_000, 1_600_000, 2_900_000, 3_200_000, 8_000_000), shape: fc.constantFrom("string", "array", "keys") })
    .map(({ size, shape }): FuzzRequest => {
      const data =
        shape === "string"
          ? { big: "s".repeat(size) }
          : shape === "array"
            ? { big: JSON.stringify(Array.from({ length: size / 4 }, () => 1)) }
            : Object.fromEntries(Array.from({ length: size / 40 }, (_, index) => [`k${index}`, "v"]));
      return {
        category: "huge body",
        method: "POST",
        path: CONFIGMAPS,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "huge-" }, data }),
      };
    });
  const badNames = fc.record({ name, method: fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "POST") }).map(({ name, method }): FuzzRequest => {
    const encoded = encodeURIComponent(name);
    return method === "POST"
      ? {
          category: "bad name",
          method,
          path: CONFIGMAPS,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...CONFIG_MAP, metadata: { name } }),
        }
      : {
          category: "bad name",
          method,
          path: `${CONFIGMAPS}/${encoded}`,
          headers: { "content-type": "application/merge-patch+json" },
          body: method === "GET" || method === "DELETE" ? undefined : JSON.stringify({ ...CONFIG_MAP, metadata: { name } }),
        };
  });
  const selectors = fc
    .record({
      label: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom("a in (", "a notin ()", "!a,b", "a=b,c!=d", "a==b", `x=${"y".repeat(70)}`, "a in (b,c", "=", ",,,", "a>1", "a<b"),
      ),
      field: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom("metadata.name=a", "metadata.name==a", "spec.nope=1", "metadata.namespace!=x,", "=", "metadata.name"),
      ),
      watch: fc.boolean(),
      which: fc.constantFrom("labelSelector", "fieldSelector", "both"),
    })
    .map(({ label, field, watch, which }): FuzzRequest => {
      const query = new URLSearchParams();
      if (which !== "fieldSelector") query.set("labelSelector", label);
      if (which !== "labelSelector") query.set("fieldSelector", field);
      if (watch) {
        query.set("watch", "1");
        query.set("timeoutSeconds", "1");
      }
      return { category: "selectors", method: "GET", path: `${watch ? CONFIGMAPS : "/api/v1/configmaps"}?${query}` };
    });
  const queryKeys = fc.constantFrom(
    "limit",
    "continue",
    "resourceVersion",
    "resourceVersionMatch",
    "timeoutSeconds",
    "dryRun",
    "fieldManager",
    "fieldValidation",
    "propagationPolicy",
    "gracePeriodSeconds",
    "pretty",
    "watch",
    "allowWatchBookmarks",
    "sendInitialEvents",
    "orphanDependents",
    "force",
    "as",
    "x",
  );
  const queries = fc
    .record({
      pairs: fc.array(
        fc.tuple(
          queryKeys,
          fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("-1", "0", "1e99", "NaN", "true", "All", "Exact", "NotOlderThan", "99999999999999999999", "")),
        ),
        { minLength: 1, maxLength: 4 },
      ),
      method: fc.constantFrom("GET", "DELETE", "POST", "PUT", "PATCH"),
      collection: fc.boolean(),
    })
    .map(({ pairs, method, collection }): FuzzRequest => {
      const query = new URLSearchParams(pairs);
      // A watch made valid by chance must end: cap it.
      query.set("timeoutSeconds", query.get("timeoutSeconds") === "1" ? "1" : "1");
      const path = collection || method === "POST" ? CONFIGMAPS : `${CONFIGMAPS}/seed`;
      const body = method === "GET" || method === "DELETE" ? undefined : JSON.stringify(CONFIG_MAP);
      return {
        category: "query parameters",
        method,
        path: `${path}?${query}`,
        headers: { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" },
        body,
      };
    });
  const invalidUtf8 = fc
    .record({
      bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => bytes.map((byte) => byte | 0x80)),
      where: fc.constantFrom("body", "path", "query"),
      type: contentType,
    })
    .map(({ bytes, where, type }): FuzzRequest => {
      const raw = Buffer.from(bytes);
      if (where === "body") {
        const body = Buffer.concat([
          Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"utf'),
          raw,
          Buffer.from('"},"data":{"a":"'),
          raw,
          Buffer.from('"}}'),
        ]);
        return { category: "invalid UTF-8", method: "POST", path: CONFIGMAPS, headers: { "content-type": type }, body };
      }
      const escaped = [...raw].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
      return {
        category: "invalid UTF-8",
        method: "GET",
        path: where === "path" ? `${CONFIGMAPS}/${escaped}` : `${CONFIGMAPS}?labelSelector=${escaped}&fieldSelector=metadata.name%3D${escaped}`,
      };
    });
  const headerFlood = fc
    .record({
      count: fc.constantFrom(10, 100, 1000),
      size: fc.constantFrom(10, 1000, 8000),
      accept: fc.oneof(
        fc.string({ maxLength: 100 }),
        fc.constantFrom("application/json;as=Table;v=v1;g=meta.k8s.io", "application/vnd.kubernetes.protobuf;stream=watch", "*/*;q=x", ";;;"),
      ),
    })
    .map(({ count, size, accept }): FuzzRequest => {
      const headers: Record<string, string> = { accept: accept.replace(/[^\x20-\x7e]/g, "") };
      for (let index = 0; index < count && index * size < 48_000; index++) headers[`x-flood-${index}`] = "f".repeat(size);
      headers["impersonate-user"] = "x".repeat(Math.min(size, 1000));
      headers["content-type"] = accept.replace(/[^\x20-\x7e]/g, "");
      return { category: "header flood", method: "GET", path: CONFIGMAPS, headers };
    });
  return [malformed, mutated, patches, deep, huge, badNames, selectors, queries, invalidUtf8, headerFlood];
}

interface Answer {
  readonly status: number;
  readonly body: string;
  /** The stream was refused at the protocol level (RST_STREAM / GOAWAY), e.g. a header list too large. */
  readonly reset: boolean;
}

function send(session: http2.ClientHttp2Session, fuzz: FuzzRequest): Promise<Answer> {
  return new Promise((resolve) => {
    let stream: http2.ClientHttp2Stream;
    try {
      // Node ends GET/DELETE streams at once unless told a body follows.
      stream = session.request(
        { ":method": fuzz.method, ":path": fuzz.path, accept: "application/json", ...fuzz.headers },
        { endStream: fuzz.body === undefined },
      );
    } catch (error) {
      // The session refused a new stream (closed, destroyed, out of stream ids): said, for the report.
      resolve({
        status: 0,
        body: `(no stream: ${String(error)}; session ${session.destroyed ? "destroyed" : session.closed ? "closed" : "open"})`,
        reset: true,
      });
      return;
    }
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (headers) => (status = Number(headers[":status"])));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {});
    stream.on("close", () =>
      resolve({
        status,
        body: Buffer.concat(chunks).toString("utf8") || `(rst ${stream.rstCode}, session ${session.destroyed ? "gone" : "open"})`,
        reset: status === 0,
      }),
    );
    stream.end(fuzz.body === undefined ? undefined : typeof fuzz.body === "string" ? fuzz.body : Buffer.from(fuzz.body));
  });
}

/**
 * Makes the server collect all its garbage: a heap snapshot (node's `--heapsnapshot-signal`) runs a
 * full collection first. An idle V8 does not collect its old generation at a set time (a reading
 * 20 s after a burst still held over 100 MiB of garbage, most of it freed Buffers' external
 * memory), so without this a reading measures the collector's schedule, not what is retained.
 */
async function collectGarbage(cli: CliServer, directory: string): Promise<void> {
  const before = new Set(readdirSync(directory));
  cli.child.kill("SIGUSR2");
  let written: string | undefined;
  let lastSize = -1;
  await waitFor(
    () => {
      written ??= readdirSync(directory).find((name) => name.endsWith(".heapsnapshot") && !before.has(name));
      if (written === undefined) return false;
      // The file is whole once its size stops changing between two looks.
      const size = statSync(join(directory, written)).size;
      const settled = size > 0 && size === lastSize;
      lastSize = size;
      return settled;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: "the server's heap snapshot" },
  );
  if (written !== undefined) rmSync(join(directory, written), { force: true });
}

/**
 * The server's live memory as its /metrics reports it after a full collection: V8's used heap
 * plus the memory outside it that JavaScript objects hold (Buffers, ArrayBuffers). The lowest of
 * `samples` readings `gapMs` apart (a reading's own garbage only ever adds to it); a leak stays in
 * every reading.
 */
async function liveMemory(session: () => Promise<http2.ClientHttp2Session>, collect: () => Promise<void>, samples: number, gapMs: number): Promise<number> {
  await collect();
  let lowest = Number.POSITIVE_INFINITY;
  for (let index = 0; index < samples; index++) {
    if (index > 0) await delay(gapMs);
    const answer = await send(await session(), { category: "metrics", method: "GET", path: "/metrics" });
    assert.equal(answer.status, 200, answer.body.slice(0, 200));
    const heap = sample(answer.body, "nodejs_heap_size_used_bytes");
    const external = sample(answer.body, "nodejs_external_memory_bytes");
    assert.ok(heap !== undefined && external !== undefined, "the server exports its heap figures");
    lowest = Math.min(lowest, heap + external);
  }
  return lowest;
}

function rssOf(pid: number): number {
  let status = "";
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return 0; // the process is gone: the crash check reports it
  }
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return Number(match?.[1] ?? "0") * 1024;
}

describe(`the fuzzer (${REQUESTS} requests, seed ${SEED})`, () => {
  const dataDir = makeTempDir("orch-fuzz-");
  const diagnostics = join(dataDir, "diagnostics");
  let cli: CliServer;
  let credentials: Credentials;
  before(async () => {
    mkdirSync(diagnostics, { recursive: true });
    cli = await startCli(["--data-dir", dataDir, "--secure-port", "0"], 60_000, ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${diagnostics}`]);
    credentials = credentialsFromKubeconfig(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8"));
  });
  after(async () => {
    await cli.stop("SIGKILL");
    removeDir(dataDir);
  });

  it("answers every hostile request with a success or a 4xx Status: no 5xx, no crash, no hang, live memory back near its baseline", async () => {
    const connect = async (): Promise<http2.ClientHttp2Session> => {
      const session = http2.connect(credentials.url, {
        ca: credentials.ca,
        cert: credentials.cert,
        key: credentials.key,
        maxHeaderListPairs: 4000,
        maxSessionMemory: 256,
      });
      session.on("error", () => {});
      await new Promise<void>((resolve, reject) => {
        session.once("connect", () => resolve());
        session.once("error", reject);
      });
      return session;
    };
    let sessions = await Promise.all(Array.from({ length: 4 }, connect));
    const setup = [
      {
        category: "setup",
        method: "POST",
        path: "/api/v1/namespaces",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: NAMESPACE } }),
      },
      { category: "setup", method: "POST", path: CONFIGMAPS, headers: { "content-type": "application/json" }, body: JSON.stringify(CONFIG_MAP) },
      { category: "setup", method: "POST", path: DEPLOYMENTS, headers: { "content-type": "application/json" }, body: JSON.stringify(DEPLOYMENT) },
    ];
    for (const request of setup) assert.equal((await send(sessions[0] as http2.ClientHttp2Session, request)).status, 201);
    const baseline = rssOf(cli.child.pid ?? 0);
    const collect = (): Promise<void> => collectGarbage(cli, diagnostics);
    const liveBaseline = await liveMemory(async () => sessions[0] as http2.ClientHttp2Session, collect, 3, 1000);

    const generators = arbitraries();
    const weights = [3, 3, 2, 0.1, 0.02, 1, 1, 1, 1, 0.2];
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    const requests: FuzzRequest[] = [];
    generators.forEach((generator, index) => {
      const count = Math.max(10, Math.round((REQUESTS * (weights[index] ?? 1)) / total));
      requests.push(...fc.sample(generator, { numRuns: count, seed: SEED + index }));
    });
    // Interleaved, so that each kind of request meets the others on a session.
    const order =
      fc.sample(
        fc.shuffledSubarray(
          requests.map((_, index) => index),
          { minLength: requests.length },
        ),
        { numRuns: 1, seed: SEED },
      )[0] ?? [];
    const shuffled = order.map((index) => requests[index] as FuzzRequest);
    const figures = {
      seed: SEED,
      requests: 0,
      byCategory: {} as Record<string, number>,
      success: 0,
      clientErrors: 0,
      protocolRefusals: 0,
      serverErrors: 0,
      crashes: 0,
      hangs: 0,
      rssBaselineMiB: 0,
      rssPeakMiB: 0,
      rssAfterMiB: 0,
      liveBaselineMiB: 0,
      liveAfterMiB: 0,
      unanswered: 0,
    };
    const failures: string[] = [];
    /** Streams closed with no HTTP answer (or none within 60 s) outside header floods. */
    const unanswered: string[] = [];
    let peak = baseline;
    let next = 0;
    /** What each lane is sending: named when the server dies. */
    const current = new Map<number, string>();
    /**
     * The last requests sent, with their outcome: named when the server dies (a crash closes every
     * stream, so the culprit is no longer in flight when the lanes notice).
     */
    const recent: string[] = [];
    const worker = async (lane: number): Promise<void> => {
      while (next < shuffled.length) {
        const fuzz = shuffled[next++] as FuzzRequest;
        // A header flood may be refused with the whole session (GOAWAY): it gets one of its own.
        const own = fuzz.category === "header flood" ? await connect() : undefined;
        let session = own ?? (sessions[lane % sessions.length] as http2.ClientHttp2Session);
        if (own === undefined && (session.closed || session.destroyed)) {
          session = await connect();
          sessions[lane % sessions.length] = session;
        }
        const described = `${fuzz.category}: ${fuzz.method} ${fuzz.path.slice(0, 300)} ${JSON.stringify(fuzz.headers ?? {}).slice(0, 100)} ${typeof fuzz.body === "string" ? `${fuzz.body.slice(0, 300)} (${fuzz.body.length} chars)` : `${fuzz.body?.length ?? 0} bytes`}`;
        current.set(lane, described);
        let timer: NodeJS.Timeout | undefined;
        const answer = await Promise.race([send(session, fuzz), new Promise<"hang">((resolve) => (timer = setTimeout(() => resolve("hang"), 60_000)))]);
        clearTimeout(timer);
        own?.destroy();
        figures.requests++;
        figures.byCategory[fuzz.category] = (figures.byCategory[fuzz.category] ?? 0) + 1;
        const shown = `${fuzz.category}: ${fuzz.method} ${fuzz.path.slice(0, 120)} ${typeof fuzz.body === "string" ? fuzz.body.slice(0, 120) : ""}`;
        current.delete(lane);
        recent.push(`${answer === "hang" ? "hang" : answer.status} <- ${described}`);
        if (recent.length > 48) recent.shift();
        if (answer === "hang") {
          figures.hangs++;
          unanswered.push(`hang: ${shown}`);
          continue;
        }
        if (answer.reset) {
          // Only a header flood may be refused below HTTP (its header list passes the session's limit).
          figures.protocolRefusals++;
          if (fuzz.category !== "header flood") unanswered.push(`reset ${answer.body}: ${shown}`);
          continue;
        }
        if (answer.status >= 500) {
          figures.serverErrors++;
          failures.push(`${answer.status}: ${shown} -> ${answer.body.slice(0, 200)}`);
        } else if (answer.status >= 400) {
          figures.clientErrors++;
          const isWatch = /[?&]watch=(1|true)/.test(fuzz.path);
          let status: { kind?: unknown; code?: unknown } = {};
          try {
            status = JSON.parse(answer.body) as typeof status;
          } catch {
            // Not JSON: reported below.
          }
          // A client preferring protobuf gets the Status in kube's protobuf envelope.
          const protobufStatus = answer.body.startsWith("k8s\u0000") && answer.body.includes("Status");
          if (!isWatch && !protobufStatus && (status.kind !== "Status" || status.code !== answer.status))
            failures.push(`not a Status (${answer.status}): ${shown} -> ${answer.body.slice(0, 200)}`);
        } else {
          figures.success++;
        }
        if (figures.requests % 500 === 0) peak = Math.max(peak, rssOf(cli.child.pid ?? 0));
      }
    };
    const stopped = await Promise.all(
      Array.from({ length: 16 }, (_, lane) =>
        worker(lane).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    assert.equal(
      cli.child.exitCode ?? cli.child.signalCode,
      null,
      `the server died: ${String(stopped.find((error) => error !== undefined))}\nin flight:\n${[...current.values()].join("\n")}\nlast sent (0: no answer):\n${recent.join("\n")}\n${cli.stderr().slice(-12000)}`,
    );
    for (const session of sessions) session.destroy();
    sessions = [];
    figures.crashes = cli.child.exitCode === null && cli.child.signalCode === null ? 0 : 1;
    // What the burst left once the server has collected its garbage (see collectGarbage). The probe
    // connects after the collection: the heap snapshot stalls the server's event loop, under load for
    // longer than its 10 s TLS handshake timeout, and Node's timers run before the socket's pending
    // bytes are read, so a connection whose handshake the server had not yet finished was cut.
    let probe: http2.ClientHttp2Session | undefined;
    const liveAfter = await liveMemory(async () => (probe ??= await connect()), collect, 5, 1000);
    probe?.destroy();
    const settled = rssOf(cli.child.pid ?? 0);
    figures.rssBaselineMiB = Math.round(baseline / 1048576);
    figures.rssPeakMiB = Math.round(Math.max(peak, settled) / 1048576);
    figures.rssAfterMiB = Math.round(settled / 1048576);
    figures.liveBaselineMiB = Math.round(liveBaseline / 1048576);
    figures.liveAfterMiB = Math.round(liveAfter / 1048576);
    figures.unanswered = unanswered.length;
    if (REPORT !== undefined) {
      mkdirSync(dirname(REPORT), { recursive: true });
      writeFileSync(REPORT, `${JSON.stringify({ ...figures, unansweredSamples: unanswered.slice(0, 20) }, null, 2)}\n`);
    }
    const kinds = new Map<string, string>();
    for (const failure of failures) kinds.set(failure.slice(0, 60), failure);
    assert.deepEqual([...kinds.values()].slice(0, 25), [], `seed ${SEED}: ${failures.length} failures`);
    assert.equal(figures.crashes, 0, "the server is still running");
    // Every stream ends with an answer. (The client's session allows 256 MB: with its default 10 MB it
    // refuses new streams itself, ENHANCE_YOUR_CALM, once the huge bodies fill it.) A body over the
    // limit is answered 413 and the rest of it read and dropped, so the client's upload ends.
    assert.deepEqual(unanswered.slice(0, 10), [], `${unanswered.length} unanswered`);
    assert.ok(figures.requests >= REQUESTS, `${figures.requests} requests sent`);
    // Near the baseline: what the run created (a few hundred small objects, a few up to 1 MiB)
    // stays, but the fuzzed bodies do not: about 130 MiB of them pass through (over 100 MiB in the
    // huge and deeply nested ones alone), so keeping them fails this.
    assert.ok(
      liveAfter < liveBaseline + LIVE_MEMORY_MARGIN,
      `live memory ${figures.liveAfterMiB} MiB after, baseline ${figures.liveBaselineMiB} MiB (RSS ${figures.rssAfterMiB} MiB after, baseline ${figures.rssBaselineMiB} MiB, peak ${figures.rssPeakMiB} MiB)`,
    );
  });
});
