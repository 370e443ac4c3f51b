import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import type { ResourceCodec } from "./cached-object.js";
import type { CacheWatcher, WatchFilter } from "./cache-watcher.js";
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

const EVERYTHING: WatchFilter = { prefix: PREFIX, labelSelector: [], fieldSelector: [] };

function newCache(watcherQueueLimit = 100): WatchCache {
  return new WatchCache(PREFIX, codec, { windowSize: 100, windowMs: 60_000, watcherQueueLimit });
}

/** Applies the creation of `name` at `revision`. */
function create(cache: WatchCache, name: string, revision: number): void {
  cache.apply({ type: "ADDED", key: `${PREFIX}ns/${name}`, revision, value: JSON.stringify({ metadata: { name, namespace: "ns" } }), previous: undefined });
}

/** A sink that records what it is given; `full` makes `write` answer false until `drain()`. */
class RecordingSink implements ChunkSink {
  readonly writes: Uint8Array[] = [];
  full = false;
  private listener: (() => void) | undefined;

  write(chunk: Uint8Array): boolean {
    this.writes.push(chunk);
    return !this.full;
  }

  onDrain(listener: () => void): () => void {
    this.listener = listener;
    return () => {
      this.listener = undefined;
    };
  }

  drain(): void {
    this.full = false;
    this.listener?.();
  }

  /** Names of the objects in every line written, in order. */
  names(): string[] {
    return Buffer.concat(this.writes)
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => String((JSON.parse(line) as { object: ApiObject }).object.metadata.name));
  }
}

/** Watches from `revision` while the cacher is at `current` (what the cache has applied). */
function watchFrom(cache: WatchCache, revision: number, current = revision): { watcher: CacheWatcher; sink: RecordingSink; done: Promise<void> } {
  const watcher = cache.watch(EVERYTHING, { kind: "revision", revision }, current, {});
  assert.ok(watcher !== undefined);
  const sink = new RecordingSink();
  return { watcher, sink, done: watcher.attach(sink) };
}

describe("watch cache fan-out", () => {
  it("writes the events of one turn once per watcher, the same bytes for every watcher of a filter", async () => {
    const cache = newCache();
    const first = watchFrom(cache, 0);
    const second = watchFrom(cache, 0);
    create(cache, "a", 1);
    create(cache, "b", 2);
    create(cache, "c", 3);
    assert.equal(first.sink.writes.length, 0, "nothing is written during the turn that applied the events");
    // The flush is scheduled for the next turn.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(first.sink.writes.length, 1);
    assert.equal(second.sink.writes.length, 1);
    assert.equal(first.sink.writes[0], second.sink.writes[0], "one chunk shared by both watchers");
    assert.deepEqual(first.sink.names(), ["a", "b", "c"]);
  });

  it("queues events while the sink is full, writes them as one chunk on drain, and ends a watcher past its limit", async () => {
    const cache = newCache(3);
    const { sink, watcher, done } = watchFrom(cache, 0);
    sink.full = true;
    create(cache, "a", 1);
    cache.flush();
    create(cache, "b", 2);
    cache.flush();
    create(cache, "c", 3);
    cache.flush();
    assert.equal(sink.writes.length, 1, "after a write the sink refused, the next events wait");
    sink.drain();
    assert.equal(sink.writes.length, 2);
    assert.deepEqual(sink.names(), ["a", "b", "c"]);
    sink.full = true;
    for (let revision = 4; revision <= 9; revision++) {
      create(cache, `n${revision}`, revision);
      cache.flush();
    }
    assert.equal(watcher.endReason, "overflow");
    assert.equal(cache.watcherCount, 0, "an ended watcher leaves the cache at once");
    sink.drain();
    await done;
    // The write the sink refused, then at most the limit of queued events.
    assert.deepEqual(sink.names(), ["a", "b", "c", "n4", "n5", "n6", "n7"]);
  });

  it("ends a watcher whose queued events pass the byte limit, however few they are", async () => {
    const cache = new WatchCache(PREFIX, codec, { windowSize: 100, windowMs: 60_000, watcherQueueLimit: 1000, watcherQueueBytes: 4096 });
    const { sink, watcher, done } = watchFrom(cache, 0);
    sink.full = true;
    const big = "x".repeat(1500);
    for (let revision = 1; revision <= 5; revision++) {
      cache.apply({
        type: "ADDED",
        key: `${PREFIX}ns/big${revision}`,
        revision,
        value: JSON.stringify({ metadata: { name: `big${revision}`, namespace: "ns" }, data: { big } }),
        previous: undefined,
      });
      cache.flush();
    }
    assert.equal(watcher.endReason, "overflow", "five events of 1.5 KB pass 4 KiB queued while the sink is full");
    sink.drain();
    await done;
    // The write the sink refused, then the two that fit in 4 KiB.
    assert.deepEqual(sink.names(), ["big1", "big2", "big3"]);
  });

  it("gives a watcher registered between an event and its flush that event once, from its replay", async () => {
    const cache = newCache();
    const early = watchFrom(cache, 0);
    create(cache, "a", 1);
    const late = watchFrom(cache, 0, 1);
    create(cache, "b", 2);
    cache.flush();
    await Promise.all(
      [early, late].map(({ watcher, done }) => {
        watcher.end("closed");
        return done;
      }),
    );
    assert.deepEqual(early.sink.names(), ["a", "b"]);
    assert.deepEqual(late.sink.names(), ["a", "b"]);
  });

  it("encodes each event once per shared encoding (protobuf) for every watcher using it, also when replayed, and each initial object once", async () => {
    const cache = newCache();
    let calls = 0;
    const sources = new Set<unknown>();
    const shared = {
      key: "frames",
      encode: (type: string, json: string, source?: object): Uint8Array => {
        calls++;
        if (source !== undefined) sources.add(source);
        return Buffer.from(`${type}:${(JSON.parse(json) as ApiObject).metadata.name}|`);
      },
    };
    const sinks = [0, 1, 2].map(() => {
      const watcher = cache.watch(EVERYTHING, { kind: "revision", revision: 0 }, 0, { encode: shared });
      assert.ok(watcher !== undefined);
      const sink = new RecordingSink();
      watcher.attach(sink);
      return sink;
    });
    const json = watchFrom(cache, 0);
    create(cache, "a", 1);
    create(cache, "b", 2);
    cache.flush();
    assert.equal(calls, 2, "two events, three protobuf watchers: two encodings");
    for (const sink of sinks) assert.equal(Buffer.concat(sink.writes).toString(), "ADDED:a|ADDED:b|");
    assert.equal(sinks[0]?.writes[0], sinks[2]?.writes[0], "one chunk shared by the group");
    assert.deepEqual(json.sink.writes.length, 1, "JSON watchers are a group of their own");
    const replay = cache.watch(EVERYTHING, { kind: "revision", revision: 0 }, 2, { encode: shared });
    assert.ok(replay !== undefined);
    assert.equal(calls, 2, "a replay reuses the events' encodings");
    const state = cache.watch(EVERYTHING, { kind: "state" }, 2, { encode: shared });
    assert.ok(state !== undefined);
    assert.equal(calls, 4, "the initial state is encoded per object");
    assert.equal(sources.size, 2, "with the cache entry as its source (the codec remembers its message by it)");
  });
});

describe("WatchCache event window bounded in bytes", () => {
  it("drops the oldest events once their objects' JSON passes windowBytes, keeping the newest, so an older watch is refused (410)", () => {
    // Each created object's JSON is about 45 bytes: three of them pass 100.
    const cache = new WatchCache(PREFIX, codec, { windowSize: 100, windowMs: 60_000, watcherQueueLimit: 100, windowBytes: 100 });
    for (let revision = 1; revision <= 5; revision++) create(cache, `object-${revision}`, revision);
    assert.ok(cache.oldestResumableRevision >= 3, `events up to ${cache.oldestResumableRevision} dropped`);
    assert.equal(cache.watch(EVERYTHING, { kind: "revision", revision: 1 }, 5, {}), undefined, "a watch from before the window is refused");
    const recent = cache.watch(EVERYTHING, { kind: "revision", revision: 4 }, 5, {});
    assert.ok(recent !== undefined, "a watch from within the window replays");
    const sink = new RecordingSink();
    recent.attach(sink);
    cache.flush();
    assert.deepEqual(sink.names(), ["object-5"]);
    assert.equal(cache.list(PREFIX, { limit: 0 }).items.length, 5, "the objects themselves stay");
  });
});
