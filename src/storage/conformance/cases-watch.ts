/**
 * Conformance cases for watch, compaction and close.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import type { Storage, WatchEvent } from "../interface.js";
import type { ConformanceCase } from "./helpers.js";
import { brief, openWatch, rejectsWith, settle, take, writeWorkload } from "./helpers.js";

function byRevision(lines: string[]): string[] {
  return [...lines].sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

async function untilRevision(storage: Storage, revision: number): Promise<void> {
  while (storage.currentRevision() < revision) await new Promise((resolve) => setImmediate(resolve));
}

export const watchCases: readonly ConformanceCase[] = [
  {
    name: "watch replays history after its revision, then continues live, in order without gap or duplicate",
    async run({ storage }) {
      const history = await writeWorkload(storage, "/w/", 40, "pre");
      // Two writers keep committing while the watch starts and switches from history to live.
      const writers = Promise.all([writeWorkload(storage, "/w/", 100, "one"), writeWorkload(storage, "/w/", 100, "two")]);
      await untilRevision(storage, 80);
      const from = 20;
      const watching = take(storage, "/w/", from, 240 - from);
      const [one, two] = await writers;
      const events = await watching;
      const expected = byRevision([...history, ...one, ...two]).slice(from);
      assert.deepEqual(events.map(brief), expected);
      assert.equal(events[events.length - 1]?.revision, storage.currentRevision());
    },
  },
  {
    name: "watch replays a long history completely",
    async run({ storage }) {
      const total = 2500;
      for (let start = 0; start < total; start += 500) {
        await Promise.all(Array.from({ length: 500 }, (_, i) => storage.create(`/long/${start + i}`, "v")));
      }
      const events = await take(storage, "/long/", 0, total);
      assert.deepEqual(
        events.map((event) => event.revision),
        Array.from({ length: total }, (_, i) => i + 1),
      );
      const tail = await take(storage, "/long/", 1999, 501);
      assert.equal(tail[0]?.revision, 2000);
    },
  },
  {
    name: "watch reports only changes under its prefix",
    async run({ storage }) {
      await storage.create("/w/a/1", "v");
      await storage.create("/w/ab/1", "v");
      await storage.create("/w/b/1", "v");
      const watching = take(storage, "/w/a/", 0, 3);
      await settle();
      await storage.create("/w/ab/2", "v");
      await storage.create("/w/a/2", "v");
      await storage.create("/w/a", "v");
      await storage.guaranteedUpdate("/w/a/1", () => "w");
      const events = await watching;
      assert.deepEqual(
        events.map((event) => `${event.type} ${event.key}`),
        ["ADDED /w/a/1", "ADDED /w/a/2", "MODIFIED /w/a/1"],
      );
    },
  },
  {
    name: "watch reports MODIFIED and DELETED with the previous value",
    async run({ storage }) {
      const controller = new AbortController();
      const next = openWatch(storage, "/e/", storage.currentRevision(), controller.signal);
      const live: Promise<WatchEvent | undefined>[] = [next()];
      await storage.create("/e/a", "one");
      await storage.guaranteedUpdate("/e/a", () => "two");
      await storage.delete("/e/a");
      await storage.create("/e/a", "three");
      live.push(next(), next(), next());
      const expected = ["1 ADDED /e/a one <- undefined", "2 MODIFIED /e/a two <- one", "3 DELETED /e/a undefined <- two", "4 ADDED /e/a three <- undefined"];
      const liveEvents = await Promise.all(live);
      controller.abort();
      assert.deepEqual(
        liveEvents.map((event) => (event === undefined ? "end" : brief(event))),
        expected,
      );
      assert.deepEqual((await take(storage, "/e/", 0, 4)).map(brief), expected, "replayed history carries the same previous values");
    },
  },
  {
    name: "watch ends when its signal aborts and leaves no listener behind",
    async run({ storage }) {
      const aborted = AbortSignal.abort();
      for await (const event of storage.watch("/", 0, aborted)) assert.fail(`unexpected ${brief(event)}`);

      await storage.create("/s/a", "v");
      const controller = new AbortController();
      const next = openWatch(storage, "/s/", 0, controller.signal);
      assert.equal((await next())?.key, "/s/a");
      const pending = next();
      await settle();
      controller.abort();
      assert.equal(await pending, undefined, "a pending next() resolves as done");
      assert.equal(await next(), undefined);
      assert.equal(getEventListeners(controller.signal, "abort").length, 0);
      await storage.create("/s/b", "v");

      const second = new AbortController();
      for await (const event of storage.watch("/s/", 0, second.signal)) {
        assert.equal(event.key, "/s/a");
        break; // return() unsubscribes too
      }
      assert.equal(getEventListeners(second.signal, "abort").length, 0);
    },
  },
  {
    name: "concurrent watchers see identical event sequences",
    async run({ storage }) {
      await writeWorkload(storage, "/cw/", 10, "pre");
      const first = take(storage, "", 0, 130);
      const writes = Promise.all(Array.from({ length: 4 }, (_, i) => writeWorkload(storage, `/cw/${i}/`, 30, "w")));
      await untilRevision(storage, 50);
      const second = take(storage, "", 5, 125);
      const third = take(storage, "/cw/", 0, 130);
      await writes;
      const [a, b, c] = await Promise.all([first, second, third]);
      assert.deepEqual(a.map(brief).slice(5), b.map(brief));
      assert.deepEqual(a.map(brief), c.map(brief));
      assert.deepEqual(
        a.map((event) => event.revision),
        Array.from({ length: 130 }, (_, i) => i + 1),
      );
    },
  },
  {
    name: "get and list below the compacted revision fail with Compacted",
    async run({ storage }) {
      await writeWorkload(storage, "/cp/", 10, "w");
      const before = await storage.list("/cp/", { revision: 6 });
      await storage.compact(6);
      assert.equal(storage.compactedRevision(), 6);
      await assert.rejects(storage.get("/cp/w-0", { revision: 5 }), (error: unknown) => {
        assert.ok(error instanceof Error && "code" in error && error.code === "Compacted");
        assert.equal("revision" in error ? error.revision : undefined, 6);
        return true;
      });
      await rejectsWith(storage.list("/cp/", { revision: 1 }), "Compacted");
      assert.deepEqual(await storage.list("/cp/", { revision: 6 }), before);
      await storage.compact(3); // already compacted: no-op
      assert.equal(storage.compactedRevision(), 6);
      await rejectsWith(storage.compact(11), "FutureRevision");
    },
  },
  {
    name: "watch from before the compacted revision fails with Compacted, from it replays with previous values",
    async run({ storage }) {
      await storage.create("/cw/a", "a1");
      await storage.create("/cw/b", "b1");
      await storage.guaranteedUpdate("/cw/a", () => "a2");
      await storage.guaranteedUpdate("/cw/a", () => "a3");
      await storage.guaranteedUpdate("/cw/b", () => "b2");
      await storage.delete("/cw/a");
      await storage.compact(4);
      const controller = new AbortController();
      await rejectsWith(openWatch(storage, "/cw/", 3, controller.signal)(), "Compacted");
      assert.deepEqual((await take(storage, "/cw/", 4, 2)).map(brief), ["5 MODIFIED /cw/b b2 <- b1", "6 DELETED /cw/a undefined <- a3"]);
      controller.abort();
    },
  },
  {
    name: "compaction keeps the latest data and the revision counter",
    async run({ storage }) {
      await writeWorkload(storage, "/k/", 50, "w");
      await storage.create("/k/last", "v");
      await storage.delete("/k/last"); // the newest revision is a tombstone
      const current = storage.currentRevision();
      const before = await storage.list("/k/");
      await storage.compact(current);
      assert.equal(storage.currentRevision(), current);
      assert.equal(storage.compactedRevision(), current);
      assert.deepEqual(await storage.list("/k/"), before);
      assert.deepEqual((await storage.list("/k/", { revision: current })).items, before.items);
      for (const item of before.items) assert.deepEqual(await storage.get(item.key), item);
      await rejectsWith(storage.get("/k/last"), "KeyNotFound");
      assert.equal(await storage.count("/k/"), before.items.length);
      assert.equal(await storage.create("/k/last", "again"), current + 1);
      assert.deepEqual((await take(storage, "/k/", current, 1)).map(brief), [`${current + 1} ADDED /k/last again <- undefined`]);
    },
  },
  {
    name: "close ends watches and rejects later operations with Closed",
    async run({ storage }) {
      await storage.create("/z/a", "v");
      const controller = new AbortController();
      const next = openWatch(storage, "/z/", 1, controller.signal);
      const pending = next();
      await settle();
      const write = storage.create("/z/b", "v"); // queued before close: still committed
      await storage.close();
      assert.equal(await write, 2);
      assert.equal((await pending)?.key, "/z/b");
      assert.equal(await next(), undefined);
      await rejectsWith(storage.create("/z/c", "v"), "Closed");
      await rejectsWith(storage.get("/z/a"), "Closed");
      await rejectsWith(openWatch(storage, "/z/", 0, controller.signal)(), "Closed");
      await storage.close();
    },
  },
];
