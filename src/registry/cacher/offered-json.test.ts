import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import type { ResourceCodec } from "./cached-object.js";
import { WatchCache } from "./watch-cache.js";
import { spliceResourceVersion } from "./splice-version.js";
import { inProcessServer } from "../../testing/in-process.js";

const PREFIX = "/core/configmaps/";
const KEY = `${PREFIX}ns/a`;

function codec(onlyStamps: boolean): ResourceCodec {
  return {
    decode(value, revision) {
      const object = JSON.parse(value) as ApiObject;
      object.metadata.resourceVersion = String(revision);
      return object;
    },
    extraFieldsOf: () => undefined,
    decodeOnlyStamps: onlyStamps,
    kind: "ConfigMap",
    apiVersion: "v1",
  };
}

const STORED = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns" }, data: { k: "v" } });
/** What the writer hands over in these tests: not the splice, so a test sees which text the cache kept. */
const MARKED = STORED.replace('"v"}', '"offered"}');

function newCache(onlyStamps = true): WatchCache {
  return new WatchCache(PREFIX, codec(onlyStamps), { windowSize: 100, windowMs: 60_000, watcherQueueLimit: 100 });
}

function add(cache: WatchCache, revision: number, value = STORED): void {
  cache.apply({ type: "ADDED", key: KEY, revision, value, previous: undefined });
}

describe("the writer's JSON offered to the watch cache (issue #13: a create's text spliced once)", () => {
  it("is the cached JSON of the write it was made for (same key, revision and stored text)", () => {
    const cache = newCache();
    cache.offerJson(KEY, 5, STORED, MARKED);
    add(cache, 5);
    assert.equal(cache.get(KEY)?.json, MARKED);
  });

  it("is not used for another revision, another stored text, or a codec that does more than stamp", () => {
    const spliced = spliceResourceVersion(STORED, "5");
    let cache = newCache();
    cache.offerJson(KEY, 4, STORED, MARKED);
    add(cache, 5);
    assert.equal(cache.get(KEY)?.json, spliced);

    cache = newCache();
    cache.offerJson(KEY, 5, STORED.replace('"v"', '"w"'), MARKED);
    add(cache, 5);
    assert.equal(cache.get(KEY)?.json, spliced);

    cache = newCache(false);
    cache.offerJson(KEY, 5, STORED, MARKED);
    add(cache, 5);
    assert.equal(cache.get(KEY)?.json, JSON.stringify({ ...JSON.parse(STORED), metadata: { name: "a", namespace: "ns", resourceVersion: "5" } }));
  });

  it("hands the written object to the followers when the writer offers it, a decoded one otherwise", () => {
    const written = { ...(JSON.parse(STORED) as ApiObject) };
    written.metadata = { ...written.metadata, resourceVersion: "5" };
    const seen: (ApiObject | undefined)[] = [];
    let cache = newCache();
    cache.onChange((change) => void (change.type !== "RESET" && seen.push(change.currentObject)));
    cache.offerJson(KEY, 5, STORED, MARKED, written);
    add(cache, 5);
    assert.equal(seen[0], written, "the writer's object itself: no second parse");

    cache = newCache();
    cache.onChange((change) => void (change.type !== "RESET" && seen.push(change.currentObject)));
    cache.offerJson(KEY, 5, STORED, MARKED);
    add(cache, 5);
    assert.notEqual(seen[1], written);
    assert.deepEqual(seen[1], written, "decoded from the stored text");

    cache = newCache();
    cache.onChange((change) => void (change.type !== "RESET" && seen.push(change.currentObject)));
    cache.offerJson(KEY, 4, STORED, MARKED, written);
    add(cache, 5);
    assert.equal(seen[2]?.metadata.resourceVersion, "5", "an offer for another revision is not used");
  });

  it("is used once, and dropped by the key's next change or a reset", () => {
    const cache = newCache();
    cache.offerJson(KEY, 5, STORED, MARKED);
    cache.apply({ type: "DELETED", key: KEY, revision: 4, value: undefined, previous: undefined });
    add(cache, 5);
    assert.equal(cache.get(KEY)?.json, spliceResourceVersion(STORED, "5"), "dropped by the key's earlier change");

    cache.offerJson(KEY, 7, STORED, MARKED);
    cache.reset([], 6);
    add(cache, 7);
    assert.equal(cache.get(KEY)?.json, spliceResourceVersion(STORED, "7"), "dropped by the reset");
  });

  it("leaves what clients read unchanged: a create's answer, GET and watch carry the same bytes", async () => {
    const server = await inProcessServer();
    try {
      const watch = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0");
      const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "offered" }, data: { a: "b" } },
      });
      assert.equal(created.status, 201);
      const got = await server.call("GET", "/api/v1/namespaces/default/configmaps/offered");
      assert.equal(got.text, created.text);
      const reader = (watch.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      let text = "";
      while (!text.includes('"name":"offered"')) {
        const next = await reader.next();
        if (next.done === true) break;
        text += Buffer.from(next.value).toString("utf8");
      }
      const line = text.split("\n").find((entry) => entry.includes('"name":"offered"')) ?? "";
      assert.equal(line, `{"type":"ADDED","object":${created.text}}`);
      await reader.return?.();
    } finally {
      await server.stop();
    }
  });
});
