import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import type { ResourceCodec } from "./cached-object.js";
import type { WatchFilter } from "./cache-watcher.js";
import type { ChunkSink } from "../../request/push-body.js";
import { WatchCache } from "./watch-cache.js";

const PREFIX = "/core/configmaps/";

const codec: ResourceCodec = {
  decode(value, revision) {
    const object = JSON.parse(value) as ApiObject;
    object.metadata.resourceVersion = String(revision);
    return object;
  },
  extraFieldsOf: () => undefined,
  kind: "ConfigMap",
  apiVersion: "v1",
};

function put(cache: WatchCache, namespace: string, name: string, revision: number, labels?: Record<string, string>): void {
  cache.apply({
    type: "ADDED",
    key: `${PREFIX}${namespace}/${name}`,
    revision,
    value: JSON.stringify({ metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) } }),
    previous: undefined,
  });
}

/** Counts the events written into it (one JSON line each). */
class CountingSink implements ChunkSink {
  lines = 0;
  write(chunk: Uint8Array): boolean {
    for (const byte of chunk) if (byte === 0x0a) this.lines++;
    return true;
  }
  onDrain(): () => void {
    return () => {};
  }
}

function watch(cache: WatchCache, filter: WatchFilter, revision: number): CountingSink {
  const watcher = cache.watch(filter, { kind: "revision", revision }, revision, {});
  assert.ok(watcher !== undefined);
  const sink = new CountingSink();
  void watcher.attach(sink);
  return sink;
}

describe("watchers indexed by namespace and by name", () => {
  it("1,000 namespaces × 100 objects, 1,000 watchers on different namespaces: each event meets only its namespace's watcher", () => {
    const cache = new WatchCache(PREFIX, codec, { windowSize: 1000, windowMs: 60_000, watcherQueueLimit: 1_000_000 });
    const namespaces = Array.from({ length: 1000 }, (_, index) => `ns-${index}`);
    const sinks = namespaces.map((namespace) => watch(cache, { prefix: `${PREFIX}${namespace}/`, labelSelector: [], fieldSelector: [] }, 0));
    let revision = 0;
    for (let object = 0; object < 100; object++) for (const namespace of namespaces) put(cache, namespace, `cm-${object}`, ++revision);
    cache.flush();
    assert.equal(revision, 100_000);
    // A scan would evaluate 1,000 filters per event (10^8 in all); the index finds the one that matches.
    assert.equal(cache.filterEvaluations, 100_000);
    for (const sink of sinks) assert.equal(sink.lines, 100);
  });

  it("finds watchers of one object by key, of the whole resource by its prefix, and keeps evaluating selectors", () => {
    const cache = new WatchCache(PREFIX, codec, { windowSize: 1000, windowMs: 60_000, watcherQueueLimit: 1000 });
    const one = watch(cache, { prefix: `${PREFIX}a/`, key: `${PREFIX}a/x`, labelSelector: [], fieldSelector: [] }, 0);
    const all = watch(cache, { prefix: PREFIX, labelSelector: [], fieldSelector: [] }, 0);
    const labelled = watch(cache, { prefix: `${PREFIX}a/`, labelSelector: [{ op: "in", key: "app", values: ["web"] }], fieldSelector: [] }, 0);
    const other = watch(cache, { prefix: `${PREFIX}b/`, labelSelector: [], fieldSelector: [] }, 0);
    put(cache, "a", "x", 1);
    put(cache, "a", "y", 2, { app: "web" });
    put(cache, "c", "z", 3);
    cache.flush();
    assert.deepEqual([one.lines, all.lines, labelled.lines, other.lines], [1, 3, 1, 0]);
    // a/x: one, all, labelled; a/y: all, labelled; c/z: all. The b/ watcher is never evaluated.
    assert.equal(cache.filterEvaluations, 6);
  });
});
