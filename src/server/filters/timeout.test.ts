import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isLongRunning } from "../../request/long-running.js";
import { parseRequestInfo } from "../../request/request-info.js";
import { HoldingStorage } from "../../testing/holding-storage.js";
import { inProcessServer } from "../../testing/in-process.js";
import { sample } from "../../testing/metrics-text.js";
import { Deadlines } from "./timeout.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const configMap = (name: string) => ({ body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name } } });

describe("request timeout (handler timeout and the `timeout` parameter)", () => {
  let server: Server;
  let storage: HoldingStorage;
  before(async () => {
    storage = new HoldingStorage("stalled");
    // --request-timeout stays at its 60 s default here: only the `timeout` parameter can cut a request short.
    server = await inProcessServer({ storage });
  });
  after(async () => {
    storage.release();
    await server.stop();
  });

  it("a request past its `timeout` parameter is 504 Timeout; its work finishes later without a second answer", async () => {
    const answered = await server.call("POST", "/api/v1/namespaces/default/configmaps?timeout=200ms", configMap("stalled-a"));
    assert.equal(answered.status, 504, answered.text);
    assert.equal(answered.json["kind"], "Status");
    assert.equal(answered.json["reason"], "Timeout");
    assert.equal(answered.json["code"], 504);
    assert.equal(answered.json["message"], "Timeout: request did not complete within the allotted timeout");
    assert.equal(storage.reachedCount, 1, "the create was under way when the deadline passed");
    // The abandoned work goes on: released, it commits (kube: "may still be processing the request").
    storage.release();
    let found = 0;
    for (let attempt = 0; attempt < 200 && found !== 200; attempt++) {
      found = (await server.call("GET", "/api/v1/namespaces/default/configmaps/stalled-a")).status;
      if (found !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(found, 200);
    const metrics = (await server.call("GET", "/metrics")).text;
    const labels = { verb: "POST", group: "", version: "v1", resource: "configmaps", scope: "namespace", component: "apiserver", code: "504" };
    assert.equal(sample(metrics, "apiserver_request_terminations_total", labels), 1);
    assert.equal(sample(metrics, "apiserver_request_total", { ...labels, dry_run: "" }), 1);
    assert.equal((await server.call("GET", "/readyz")).status, 200);
  });

  it("a request that finishes in time is answered as usual, with or without `timeout`", async () => {
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/configmaps?timeout=30s", configMap("in-time"))).status, 201);
    assert.equal((await server.call("GET", "/api/v1/namespaces/default/configmaps/in-time?timeout=0s")).status, 200);
  });

  it("an unparsable `timeout` is 400 with kube's wording", async () => {
    const refused = await server.call("GET", "/api/v1/namespaces/default/configmaps?timeout=soon");
    assert.equal(refused.status, 400);
    assert.match(String(refused.json["message"]), /^invalid timeout specified in the request URL/);
  });

  it("dry runs carry kube's dry_run label", async () => {
    const created = await server.call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", configMap("dry"));
    assert.equal(created.status, 201, created.text);
    const metrics = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(metrics, "apiserver_request_total", { verb: "POST", dry_run: "All", resource: "configmaps", code: "201" }), 1);
    assert.ok((sample(metrics, "apiserver_request_duration_seconds_count", { verb: "POST", dry_run: "All", resource: "configmaps" }) ?? 0) >= 1);
  });
});

describe("request timeout: long-running requests are exempt", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ flowControl: { requestTimeoutMs: 100 } });
  });
  after(async () => {
    await server.stop();
  });

  it("a watch outlives --request-timeout and still delivers events", async () => {
    const abort = new AbortController();
    const response = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0", { signal: abort.signal });
    assert.equal(response.status, 200);
    const iterator = (response.body as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/configmaps", configMap("after-deadline"))).status, 201);
    let text = "";
    while (!text.includes("after-deadline")) {
      const next = await iterator.next();
      assert.equal(next.done, false, "the watch ended");
      text += typeof next.value === "string" ? next.value : Buffer.from(next.value).toString("utf8");
    }
    abort.abort();
    await iterator.return?.();
  });

  it("kube's long-running check: watch, and the attach, exec, proxy, log and portforward sub-resources", () => {
    const info = (method: string, path: string, query = "") => parseRequestInfo(method, path, new URLSearchParams(query));
    assert.equal(isLongRunning(info("GET", "/api/v1/namespaces/a/pods", "watch=true")), true);
    for (const subresource of ["log", "exec", "attach", "portforward", "proxy"])
      assert.equal(isLongRunning(info("GET", `/api/v1/namespaces/a/pods/p/${subresource}`)), true, subresource);
    assert.equal(isLongRunning(info("GET", "/api/v1/namespaces/a/pods/p")), false);
    assert.equal(isLongRunning(info("GET", "/api/v1/namespaces/a/pods/p/status")), false);
    assert.equal(isLongRunning(info("GET", "/debug/pprof/profile")), true);
    assert.equal(isLongRunning(info("GET", "/metrics")), false);
  });
});

describe("Deadlines (one timer for every pending request)", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("expires each deadline once, in order, across limits, and never a cancelled one", async () => {
    const deadlines = new Deadlines();
    const fired: string[] = [];
    const started = performance.now();
    const at: Record<string, number> = {};
    const add = (name: string, limit: number) =>
      deadlines.add(limit, () => {
        fired.push(name);
        at[name] = performance.now() - started;
      });
    add("a-80", 80);
    const cancelled = add("b-80", 80);
    add("c-30", 30);
    add("d-80", 80);
    deadlines.cancel(cancelled);
    deadlines.cancel(cancelled);
    await sleep(50);
    assert.deepEqual(fired, ["c-30"]);
    // A later request with a shorter limit than what is pending still expires on time.
    add("e-10", 10);
    await sleep(80);
    assert.deepEqual(fired, ["c-30", "e-10", "a-80", "d-80"]);
    for (const [name, limit] of [
      ["c-30", 30],
      ["e-10", 60],
      ["a-80", 80],
      ["d-80", 80],
    ] as const) {
      assert.ok((at[name] ?? 0) >= limit - 1, `${name} fired at ${at[name]} ms`);
    }
  });

  it("a deadline added after the others expired is armed again", async () => {
    const deadlines = new Deadlines();
    const fired: string[] = [];
    deadlines.add(5, () => fired.push("first"));
    await sleep(30);
    const second = deadlines.add(5, () => fired.push("cancelled"));
    deadlines.cancel(second);
    deadlines.add(10, () => fired.push("third"));
    await sleep(40);
    assert.deepEqual(fired, ["first", "third"]);
  });
});

describe("Deadlines beyond Node's longest timer (2^31 - 1 ms)", () => {
  it("keeps a 30-day deadline pending without Node's overflow warning and its 1 ms timer, and still expires a short one", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const realSetTimeout = globalThis.setTimeout;
    const delays: number[] = [];
    globalThis.setTimeout = ((callback: () => void, delay?: number) => {
      delays.push(delay ?? 0);
      return realSetTimeout(callback, delay);
    }) as typeof setTimeout;
    try {
      const deadlines = new Deadlines();
      const fired: string[] = [];
      const month = deadlines.add(30 * 24 * 3600 * 1000, () => fired.push("month"));
      const calls = delays.length;
      await new Promise((resolve) => realSetTimeout(resolve, 30));
      // Without the cap: a 1 ms timer re-armed at every firing, ~30 of them by now.
      assert.ok(delays.length - calls <= 1, `timer armed ${delays.length - calls} more times: ${delays.slice(0, 5).join(", ")}`);
      deadlines.add(5, () => fired.push("short"));
      await new Promise((resolve) => realSetTimeout(resolve, 30));
      assert.deepEqual(fired, ["short"]);
      deadlines.cancel(month);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((name) => name === "TimeoutOverflowWarning"),
        [],
      );
      assert.ok(
        delays.every((delay) => delay <= 2 ** 31 - 1),
        `delays: ${delays.join(", ")}`,
      );
    } finally {
      globalThis.setTimeout = realSetTimeout;
      process.off("warning", onWarning);
    }
  });
});
