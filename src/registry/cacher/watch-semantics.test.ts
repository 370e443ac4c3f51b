import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../../testing/in-process.js";
import { nameOf, versionOf, WatchReader } from "../../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const MERGE = { "content-type": "application/merge-patch+json" };

function meta(object: Json): Json {
  return object["metadata"] as Json;
}

describe("watch semantics", () => {
  let server: Server;
  const namespace = "watching";
  const base = `/api/v1/namespaces/${namespace}/configmaps`;
  const readers: WatchReader[] = [];
  const controllers: AbortController[] = [];

  async function watch(query: string, path = base): Promise<WatchReader> {
    const controller = new AbortController();
    controllers.push(controller);
    const response = await server.raw("GET", `${path}?watch=1&${query}`, { signal: controller.signal });
    assert.equal(response.status, 200);
    const reader = new WatchReader(response);
    readers.push(reader);
    return reader;
  }

  async function create(name: string, labels?: Record<string, string>): Promise<string> {
    const response = await server.call("POST", base, { body: { metadata: { name, labels } } });
    assert.equal(response.status, 201);
    return String(meta(response.json)["resourceVersion"]);
  }

  before(async () => {
    server = await inProcessServer({ bookmarkIntervalMs: 50, watchCache: { windowSize: 50 } });
    await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });
    await create("existing-1");
    await create("existing-2");
  });
  after(async () => {
    for (const controller of controllers) controller.abort();
    for (const reader of readers) await reader.close();
    await server.stop();
  });

  it("rv unset: synthetic ADDED for the current state, then changes", async () => {
    const reader = await watch("");
    const initial = await reader.next(2);
    assert.deepEqual(
      initial.map((event) => [event.type, nameOf(event)]),
      [
        ["ADDED", "existing-1"],
        ["ADDED", "existing-2"],
      ],
    );
    await create("after-unset");
    const [added] = await reader.next(1);
    assert.deepEqual([added?.type, added === undefined ? "" : nameOf(added)], ["ADDED", "after-unset"]);
  });

  it('rv "0": synthetic ADDED for the state, then changes', async () => {
    const reader = await watch("resourceVersion=0");
    const initial = await reader.next(3);
    assert.ok(initial.every((event) => event.type === "ADDED"));
    await server.call("PATCH", `${base}/existing-1`, { body: { data: { x: "1" } }, headers: MERGE });
    const [modified] = await reader.next(1);
    assert.equal(modified?.type, "MODIFIED");
  });

  it("other rv: only changes after it, no synthetic ADDED, no repeat, no gap", async () => {
    const from = await create("watch-from");
    const reader = await watch(`resourceVersion=${from}`);
    const second = await create("watch-next");
    await server.call("DELETE", `${base}/watch-next`);
    const events = await reader.next(2);
    assert.deepEqual(
      events.map((event) => [event.type, nameOf(event)]),
      [
        ["ADDED", "watch-next"],
        ["DELETED", "watch-next"],
      ],
    );
    assert.equal(versionOf(events[0] ?? { type: "", object: {} }), second);
    assert.ok(Number(versionOf(events[1] ?? { type: "", object: {} })) > Number(second), "DELETED carries the deletion's version");
  });

  it("replays from the window a version older than the newest", async () => {
    const from = await create("replay-0");
    await create("replay-1");
    await create("replay-2");
    const reader = await watch(`resourceVersion=${from}`);
    const events = await reader.next(2);
    assert.deepEqual(events.map(nameOf), ["replay-1", "replay-2"]);
  });

  it("a version older than the window gets one ERROR event with 410 Expired", async () => {
    for (let index = 0; index < 60; index++) await create(`flood-${index}`);
    const reader = await watch("resourceVersion=2");
    const events = await reader.rest();
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, "ERROR");
    assert.equal(events[0]?.object["code"], 410);
    assert.equal(events[0]?.object["reason"], "Expired");
  });

  it("filters by label selector and sends an object that stops matching as DELETED", async () => {
    const reader = await watch(`labelSelector=team%3Dblue&resourceVersion=${String(server.storage.currentRevision())}`);
    await create("blue-1", { team: "blue" });
    await create("red-1", { team: "red" });
    await server.call("PATCH", `${base}/blue-1`, { body: { metadata: { labels: { team: "red" } } }, headers: MERGE });
    await server.call("PATCH", `${base}/red-1`, { body: { metadata: { labels: { team: "blue" } } }, headers: MERGE });
    const events = await reader.next(3);
    assert.deepEqual(
      events.map((event) => [event.type, nameOf(event)]),
      [
        ["ADDED", "blue-1"],
        ["DELETED", "blue-1"],
        ["ADDED", "red-1"],
      ],
    );
  });

  it("watches one object by its path and by fieldSelector=metadata.name", async () => {
    await create("single");
    const byPath = await watch("", `${base}/single`);
    const byField = await watch("fieldSelector=metadata.name%3Dsingle");
    assert.equal(nameOf((await byPath.next(1))[0] ?? { type: "", object: {} }), "single");
    assert.equal(nameOf((await byField.next(1))[0] ?? { type: "", object: {} }), "single");
    await create("single-other");
    await server.call("PATCH", `${base}/single`, { body: { data: { v: "2" } }, headers: MERGE });
    for (const reader of [byPath, byField]) {
      const [event] = await reader.next(1);
      assert.deepEqual([event?.type, event === undefined ? "" : nameOf(event)], ["MODIFIED", "single"]);
    }
  });

  it("sends BOOKMARKs carrying only the resourceVersion when allowed", async () => {
    const reader = await watch(`allowWatchBookmarks=true&resourceVersion=${server.storage.currentRevision()}`);
    const [bookmark] = await reader.next(1);
    assert.equal(bookmark?.type, "BOOKMARK");
    assert.deepEqual(Object.keys(bookmark?.object ?? {}).sort(), ["apiVersion", "kind", "metadata"]);
    assert.equal(bookmark?.object["kind"], "ConfigMap");
    assert.deepEqual(Object.keys(bookmark?.object.metadata ?? {}), ["resourceVersion"]);
  });

  it("ends at timeoutSeconds with a final BOOKMARK", async () => {
    const reader = await watch(`timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${server.storage.currentRevision()}`);
    const events = await reader.rest(4000);
    assert.ok(events.length >= 1);
    assert.equal(events.at(-1)?.type, "BOOKMARK");
  });

  it("streams initial events then a BOOKMARK annotated initial-events-end (sendInitialEvents)", async () => {
    const listed = await server.call("GET", base);
    const count = (listed.json["items"] as Json[]).length;
    const reader = await watch("sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
    const events = await reader.next(count + 1);
    assert.ok(events.slice(0, count).every((event) => event.type === "ADDED"));
    const end = events[count];
    assert.equal(end?.type, "BOOKMARK");
    assert.deepEqual((end?.object.metadata as Json)["annotations"], { "orch.io/initial-events-end": "true" });
  });

  it("refuses sendInitialEvents without resourceVersionMatch=NotOlderThan (422) and on lists", async () => {
    assert.equal((await server.call("GET", `${base}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`)).status, 422);
    assert.equal((await server.call("GET", `${base}?sendInitialEvents=true`)).status, 422);
  });

  it("gives concurrent watchers the same events in the same order", async () => {
    const from = String(server.storage.currentRevision());
    const first = await watch(`resourceVersion=${from}`);
    const second = await watch(`resourceVersion=${from}`);
    await Promise.all(Array.from({ length: 30 }, (_, index) => create(`concurrent-${index}`)));
    const a = (await first.next(30)).map(versionOf);
    const b = (await second.next(30)).map(versionOf);
    assert.deepEqual(a, b);
    assert.deepEqual(
      [...a].sort((x, y) => Number(x) - Number(y)),
      a,
      "in version order",
    );
  });
});

describe("watch resumption and slow watchers", () => {
  it("loses nothing when restarted 10 times from the last seen version during 1,000 writes", async () => {
    const server = await inProcessServer({ watchCache: { windowSize: 5000 } });
    const base = "/api/v1/namespaces/default/configmaps";
    let last = String(server.storage.currentRevision());
    const seen: string[] = [];
    const writer = (async () => {
      for (let index = 0; index < 1000; index++) await server.call("POST", base, { body: { metadata: { name: `w-${String(index).padStart(4, "0")}` } } });
    })();
    for (let round = 0; round < 10; round++) {
      const controller = new AbortController();
      const reader = new WatchReader(await server.raw("GET", `${base}?watch=1&resourceVersion=${last}`, { signal: controller.signal }));
      const events = await reader.next(round === 9 ? 1000 - seen.length : 100, 20_000);
      for (const event of events) {
        seen.push(nameOf(event));
        last = versionOf(event);
      }
      controller.abort();
      await reader.close();
    }
    await writer;
    assert.equal(seen.length, 1000);
    assert.equal(new Set(seen).size, 1000, "no repeats");
    assert.deepEqual(seen, [...seen].sort(), "in order");
    await server.stop();
  });

  it("ends a watcher that cannot keep up instead of buffering without bound", async () => {
    const server = await inProcessServer({ watchCache: { watcherQueueLimit: 5 } });
    const base = "/api/v1/namespaces/default/configmaps";
    const controller = new AbortController();
    const from = server.storage.currentRevision();
    const response = await server.raw("GET", `${base}?watch=1&resourceVersion=${from}`, { signal: controller.signal });
    // Nobody reads while 20 events happen: the queue passes its limit.
    for (let index = 0; index < 20; index++) await server.call("POST", base, { body: { metadata: { name: `slow-${index}` } } });
    const reader = new WatchReader(response);
    const events = await reader.rest();
    assert.ok(events.length <= 5, `got ${events.length}`);
    const cache = server.server.registry.find("", "v1", "configmaps")?.watchCache?.cache;
    assert.equal(cache?.watcherCount, 0, "the watcher was removed");
    controller.abort();
    await server.stop();
  });

  it("answers a watch from a compacted revision with the storage watch's 410 when the cache is off (kube's etcd3 text)", async () => {
    const server = await inProcessServer({ watchCache: false });
    const base = "/api/v1/namespaces/default/configmaps";
    const created = await server.call("POST", base, { body: { metadata: { name: "compacted" } } });
    const first = String((created.json["metadata"] as Record<string, unknown>)["resourceVersion"]);
    const later = await server.call("PUT", `${base}/compacted`, { body: { metadata: { name: "compacted" }, data: { a: "1" } } });
    assert.equal(later.status, 200, later.text);
    await server.storage.compact(Number((later.json["metadata"] as Record<string, unknown>)["resourceVersion"]));
    const controller = new AbortController();
    const reader = new WatchReader(await server.raw("GET", `${base}?watch=1&resourceVersion=${first}`, { signal: controller.signal }));
    const [event] = await reader.next(1);
    assert.equal(event?.type, "ERROR");
    assert.deepEqual(
      [event?.object["code"], event?.object["reason"], event?.object["message"]],
      [410, "Expired", "The resourceVersion for the provided watch is too old."],
    );
    controller.abort();
    await reader.close();
    await server.stop();
  });

  it("serves lists and watches from storage when the cache is off", async () => {
    const server = await inProcessServer({ watchCache: false });
    const base = "/api/v1/namespaces/default/configmaps";
    const controller = new AbortController();
    const reader = new WatchReader(await server.raw("GET", `${base}?watch=1`, { signal: controller.signal }));
    await server.call("POST", base, { body: { metadata: { name: "uncached" } } });
    const [event] = await reader.next(1);
    assert.equal(event === undefined ? "" : nameOf(event), "uncached");
    controller.abort();
    await reader.close();
    await server.stop();
  });
});
