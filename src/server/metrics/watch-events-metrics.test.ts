import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { sample } from "../../testing/metrics-text.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const CONFIG_MAP = { group: "", version: "v1", kind: "ConfigMap" };

async function readUntil(iterator: AsyncIterator<string | Uint8Array>, text: string): Promise<void> {
  let seen = "";
  while (!seen.includes(text)) {
    const next = await iterator.next();
    assert.equal(next.done, false, "the watch ended");
    seen += typeof next.value === "string" ? next.value : Buffer.from(next.value).toString("utf8");
  }
}

describe("/metrics: apiserver_watch_events_total and apiserver_watch_events_sizes", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({ controllers: [] });
  });
  after(async () => {
    await server.stop();
  });

  it("count every event sent to every watcher, by group, version and kind, with its size in bytes", async () => {
    const scrape = async () => (await server.call("GET", "/metrics")).text;
    const before = await scrape();
    const count = (text: string) => sample(text, "apiserver_watch_events_total", CONFIG_MAP) ?? 0;
    const sizes = (text: string) => sample(text, "apiserver_watch_events_sizes_count", CONFIG_MAP) ?? 0;
    const bytes = (text: string) => sample(text, "apiserver_watch_events_sizes_sum", CONFIG_MAP) ?? 0;
    const aborts = [new AbortController(), new AbortController()];
    const iterators = [];
    for (const abort of aborts) {
      const response = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=true&labelSelector=watched%3Dyes", { signal: abort.signal });
      assert.equal(response.status, 200);
      iterators.push((response.body as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]());
    }
    const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "watched", labels: { watched: "yes" } }, data: { big: "y".repeat(3000) } },
    });
    assert.equal(created.status, 201, created.text);
    for (const iterator of iterators) await readUntil(iterator, '"name":"watched"');
    const text = await scrape();
    assert.equal(count(text), count(before) + 2, "one ADDED event to each of two watchers");
    assert.equal(sizes(text), sizes(before) + 2);
    assert.ok(bytes(text) - bytes(before) > 2 * 3000, "each event's encoded size");
    const under2k = (scraped: string) => sample(scraped, "apiserver_watch_events_sizes_bucket", { ...CONFIG_MAP, le: "2048" }) ?? 0;
    assert.equal(under2k(text), under2k(before), "events over 3,000 bytes land above the 2 KiB bucket");
    assert.match(text, /# HELP apiserver_watch_events_total \[ALPHA\] Number of events sent in watch clients/);
    for (const abort of aborts) abort.abort();
    for (const iterator of iterators) await iterator.return?.();
  });
});
