import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { sample } from "../../testing/metrics-text.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const scrape = async (server: Server): Promise<string> => (await server.call("GET", "/metrics")).text;

describe("/metrics: response sizes, aborts and the watch cache", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("apiserver_response_sizes observes GETs' and LISTs' body sizes by kube's request labels, not writes'", async () => {
    const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name: "sized" }, data: { blob: "x".repeat(5000) } },
    });
    assert.equal(created.status, 201);
    const got = await server.call("GET", "/api/v1/namespaces/default/configmaps/sized");
    const listed = await server.call("GET", "/api/v1/namespaces/default/configmaps");
    const text = await scrape(server);
    const labels = { group: "", version: "v1", resource: "configmaps", subresource: "", component: "apiserver" };
    const getLabels = { ...labels, verb: "GET", scope: "resource" };
    assert.equal(sample(text, "apiserver_response_sizes_count", getLabels), 1);
    assert.equal(sample(text, "apiserver_response_sizes_sum", getLabels), Buffer.byteLength(got.text));
    assert.equal(sample(text, "apiserver_response_sizes_bucket", { ...getLabels, le: "1000" }), 0, "over 5 kB");
    assert.equal(sample(text, "apiserver_response_sizes_bucket", { ...getLabels, le: "10000" }), 1);
    const listLabels = { ...labels, verb: "LIST", scope: "namespace" };
    assert.equal(sample(text, "apiserver_response_sizes_count", listLabels), 1);
    assert.equal(sample(text, "apiserver_response_sizes_sum", listLabels), Buffer.byteLength(listed.text));
    assert.equal(sample(text, "apiserver_response_sizes_count", { ...labels, verb: "POST" }), undefined, "kube observes reads only");
  });

  it("apiserver_request_aborts_total counts a request whose client went away before its answer", async () => {
    const labels = { verb: "GET", group: "", version: "v1", resource: "configmaps", subresource: "", scope: "resource" };
    const before = sample(await scrape(server), "apiserver_request_aborts_total", labels) ?? 0;
    const gone = new AbortController();
    gone.abort();
    await server.raw("GET", "/api/v1/namespaces/default/configmaps/sized", { signal: gone.signal }).catch(() => undefined);
    assert.equal(sample(await scrape(server), "apiserver_request_aborts_total", labels), before + 1);
    await server.call("GET", "/api/v1/namespaces/default/configmaps/sized");
    assert.equal(sample(await scrape(server), "apiserver_request_aborts_total", labels), before + 1, "a completed request is no abort");
  });

  it("the watch cache counts received and dispatched events, initial events and its capacity by resource", async () => {
    const resource = { resource: "secrets" };
    const start = await scrape(server);
    assert.ok((sample(start, "watch_cache_capacity", resource) ?? 0) > 0, "capacity set when the cache is made");
    const received = sample(start, "apiserver_watch_cache_events_received_total", resource) ?? 0;
    const dispatched = sample(start, "apiserver_watch_cache_events_dispatched_total", resource) ?? 0;
    const init = sample(start, "apiserver_init_events_total", resource) ?? 0;
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/secrets", { body: { metadata: { name: "before-watch" } } })).status, 201);
    const existing = JSON.parse((await server.call("GET", "/api/v1/namespaces/default/secrets")).text).items.length as number;
    const abort = new AbortController();
    const response = await server.raw("GET", "/api/v1/namespaces/default/secrets?watch=true", { signal: abort.signal });
    const iterator = (response.body as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
    await iterator.next();
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/secrets", { body: { metadata: { name: "watched" } } })).status, 201);
    let text = await scrape(server);
    for (let attempt = 0; attempt < 100 && (sample(text, "apiserver_watch_cache_events_dispatched_total", resource) ?? 0) < dispatched + 1; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      text = await scrape(server);
    }
    assert.equal(sample(text, "apiserver_init_events_total", resource), init + existing, "a watch without a revision starts with the current state");
    assert.ok((sample(text, "apiserver_watch_cache_events_received_total", resource) ?? 0) >= received + 2, "both creates reached the cache");
    assert.equal(sample(text, "apiserver_watch_cache_events_dispatched_total", resource), dispatched + 1, "only the create after the watch had a watcher");
    abort.abort();
    await iterator.return?.();
  });
});
