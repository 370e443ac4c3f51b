/**
 * Conformance cases for reads and writes (no watch, no compaction).
 */
import assert from "node:assert/strict";
import type { ConformanceCase } from "./helpers.js";
import { rejectsWith } from "./helpers.js";

export const kvCases: readonly ConformanceCase[] = [
  {
    name: "create then get round-trips the value with its modRevision and createRevision",
    async run({ storage }) {
      assert.equal(storage.currentRevision(), 0);
      const revision = await storage.create("/things/a", '{"n":1}');
      assert.equal(revision, 1);
      assert.deepEqual(await storage.get("/things/a"), { key: "/things/a", value: '{"n":1}', modRevision: 1, createRevision: 1 });
      await storage.guaranteedUpdate("/things/a", () => '{"n":2}');
      assert.deepEqual(await storage.get("/things/a"), { key: "/things/a", value: '{"n":2}', modRevision: 2, createRevision: 1 });
    },
  },
  {
    name: "every successful write advances the revision by exactly one and failed writes consume none",
    async run({ storage }) {
      const seen: number[] = [await storage.create("/r/a", "1")];
      seen.push((await storage.guaranteedUpdate("/r/a", () => "2")).revision);
      await rejectsWith(storage.create("/r/a", "x"), "KeyExists");
      seen.push(await storage.create("/r/b", "1"));
      await rejectsWith(storage.delete("/r/missing"), "KeyNotFound");
      seen.push((await storage.delete("/r/a")).revision);
      await rejectsWith(storage.delete("/r/b", { expectedRevision: 1 }), "PreconditionFailed");
      seen.push(await storage.create("/r/a", "again"));
      assert.deepEqual(seen, [1, 2, 3, 4, 5]);
      assert.equal(storage.currentRevision(), 5);
      const recreated = await storage.get("/r/a");
      assert.equal(recreated.createRevision, 5, "a re-created key starts a new createRevision");
    },
  },
  {
    name: "create of a live key fails with KeyExists and leaves it unchanged",
    async run({ storage }) {
      await storage.create("/k/a", "first");
      await rejectsWith(storage.create("/k/a", "second"), "KeyExists");
      assert.equal((await storage.get("/k/a")).value, "first");
    },
  },
  {
    name: "get of a missing or deleted key fails with KeyNotFound",
    async run({ storage }) {
      await rejectsWith(storage.get("/k/none"), "KeyNotFound");
      await storage.create("/k/gone", "v");
      await storage.delete("/k/gone");
      await rejectsWith(storage.get("/k/gone"), "KeyNotFound");
    },
  },
  {
    name: "list returns only keys under the prefix, in key order",
    async run({ storage }) {
      for (const key of ["/a/c", "/ab/x", "/a/a", "/a/b/deep", "/b/a", "/a/\u{1F600}", "/a/\uffff", "/a"]) {
        await storage.create(key, `v${key}`);
      }
      await storage.create("/a/deleted", "v");
      await storage.delete("/a/deleted");
      const result = await storage.list("/a/");
      // Code point order (= UTF-8 byte order): U+FFFF sorts before U+1F600.
      assert.deepEqual(
        result.items.map((item) => item.key),
        ["/a/a", "/a/b/deep", "/a/c", "/a/\uffff", "/a/\u{1F600}"],
      );
      assert.equal(result.items[0]?.value, "v/a/a");
      assert.equal(result.revision, storage.currentRevision());
      assert.equal(result.remaining, 0);
      assert.equal((await storage.list("")).items.length, 8);
      assert.deepEqual((await storage.list("/nothing/")).items, []);
    },
  },
  {
    name: "list pages with limit and startAfter and reports the remaining count",
    async run({ storage }) {
      const keys = Array.from({ length: 10 }, (_, i) => `/p/item-${String(i).padStart(2, "0")}`);
      for (const key of keys) await storage.create(key, key);
      await storage.create("/q/other", "x");
      const first = await storage.list("/p/", { limit: 4 });
      assert.deepEqual(
        first.items.map((item) => item.key),
        keys.slice(0, 4),
      );
      assert.equal(first.remaining, 6);
      await storage.delete(keys[6] as string); // a page continues at the revision of the first one
      const second = await storage.list("/p/", { limit: 4, startAfter: keys[3], revision: first.revision });
      assert.deepEqual(
        second.items.map((item) => item.key),
        keys.slice(4, 8),
      );
      assert.equal(second.remaining, 2);
      const third = await storage.list("/p/", { limit: 4, startAfter: keys[7], revision: first.revision });
      assert.deepEqual(
        third.items.map((item) => item.key),
        keys.slice(8),
      );
      assert.equal(third.remaining, 0);
      const latest = await storage.list("/p/", { limit: 4, startAfter: keys[3] });
      assert.deepEqual(
        latest.items.map((item) => item.key),
        [keys[4], keys[5], keys[7], keys[8]],
      );
      assert.equal(latest.remaining, 1);
      const exact = await storage.list("/p/", { limit: 9 });
      assert.equal(exact.items.length, 9);
      assert.equal(exact.remaining, 0);
      assert.deepEqual((await storage.list("/p/", { startAfter: "/a" })).items.length, 9);
    },
  },
  {
    name: "get and list at an older revision see the state of that revision",
    async run({ storage }) {
      const r1 = await storage.create("/o/a", "a1");
      const r2 = await storage.create("/o/b", "b1");
      await storage.guaranteedUpdate("/o/a", () => "a2");
      await storage.delete("/o/b");
      await storage.create("/o/c", "c1");
      assert.equal((await storage.get("/o/a", { revision: r1 })).value, "a1");
      assert.equal((await storage.get("/o/a", { revision: r1 })).modRevision, r1);
      assert.equal((await storage.get("/o/b", { revision: r2 })).value, "b1");
      await rejectsWith(storage.get("/o/b"), "KeyNotFound");
      await rejectsWith(storage.get("/o/c", { revision: r2 }), "KeyNotFound");
      const old = await storage.list("/o/", { revision: r2 });
      assert.equal(old.revision, r2);
      assert.deepEqual(
        old.items.map((item) => `${item.key}=${item.value}@${item.modRevision}`),
        [`/o/a=a1@${r1}`, `/o/b=b1@${r2}`],
      );
      const now = await storage.list("/o/");
      assert.deepEqual(
        now.items.map((item) => `${item.key}=${item.value}`),
        ["/o/a=a2", "/o/c=c1"],
      );
      const paged = await storage.list("/o/", { revision: r2, limit: 1 });
      assert.equal(paged.remaining, 1);
    },
  },
  {
    name: "get and list at a future revision fail with FutureRevision",
    async run({ storage }) {
      await storage.create("/f/a", "v");
      await rejectsWith(storage.get("/f/a", { revision: 2 }), "FutureRevision");
      await rejectsWith(storage.list("/f/", { revision: 5 }), "FutureRevision");
      assert.equal((await storage.get("/f/a", { revision: 1 })).value, "v");
    },
  },
  {
    name: "guaranteedUpdate applies concurrent read-modify-writes without losing any",
    async run({ storage }) {
      await storage.create("/c/counter", "0");
      const results = await Promise.all(
        Array.from({ length: 20 }, async () =>
          storage.guaranteedUpdate("/c/counter", async (current) => {
            assert.ok(current !== undefined);
            await new Promise((resolve) => setImmediate(resolve));
            return String(Number(current.value) + 1);
          }),
        ),
      );
      assert.equal((await storage.get("/c/counter")).value, "20");
      assert.deepEqual(
        results.map((result) => result.revision).sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
      assert.equal(storage.currentRevision(), 21);
    },
  },
  {
    name: "guaranteedUpdate with ignoreNotFound creates the key, without it fails with KeyNotFound",
    async run({ storage }) {
      await rejectsWith(
        storage.guaranteedUpdate("/u/new", () => "v"),
        "KeyNotFound",
      );
      let seen: unknown = "not called";
      const result = await storage.guaranteedUpdate(
        "/u/new",
        (current) => {
          seen = current;
          return "v";
        },
        { ignoreNotFound: true },
      );
      assert.equal(seen, undefined);
      assert.equal(result.created, true);
      assert.deepEqual(result.value, { key: "/u/new", value: "v", modRevision: 1, createRevision: 1 });
      const again = await storage.guaranteedUpdate("/u/new", () => "w", { ignoreNotFound: true });
      assert.equal(again.created, false);
      assert.equal(again.value?.createRevision, 1);
    },
  },
  {
    name: "guaranteedUpdate returning delete deletes the key",
    async run({ storage }) {
      await storage.create("/d/a", "v");
      const result = await storage.guaranteedUpdate("/d/a", () => ({ delete: true }));
      assert.equal(result.value, undefined);
      assert.equal(result.revision, 2);
      assert.equal(result.created, false);
      await rejectsWith(storage.get("/d/a"), "KeyNotFound");
      const absent = await storage.guaranteedUpdate("/d/a", () => ({ delete: true }), { ignoreNotFound: true });
      assert.equal(absent.value, undefined);
      assert.equal(storage.currentRevision(), 2, "deleting an absent key writes nothing");
    },
  },
  {
    name: "guaranteedUpdate aborts without writing or consuming a revision when tryUpdate throws",
    async run({ storage }) {
      await storage.create("/t/a", "v");
      const failure = new Error("admission said no");
      await assert.rejects(
        storage.guaranteedUpdate("/t/a", () => Promise.reject(failure)),
        (error: unknown) => error === failure,
      );
      await assert.rejects(
        storage.guaranteedUpdate("/t/a", () => {
          throw failure;
        }),
        (error: unknown) => error === failure,
      );
      assert.equal(storage.currentRevision(), 1);
      assert.equal((await storage.get("/t/a")).value, "v");
      assert.equal(await storage.create("/t/b", "w"), 2);
    },
  },
  {
    name: "guaranteedUpdate that returns the current value writes nothing",
    async run({ storage }) {
      await storage.create("/n/a", "same");
      const result = await storage.guaranteedUpdate("/n/a", (current) => current?.value ?? "");
      assert.equal(result.revision, 1);
      assert.deepEqual(result.value, { key: "/n/a", value: "same", modRevision: 1, createRevision: 1 });
      assert.equal(storage.currentRevision(), 1);
    },
  },
  {
    name: "delete honours expectedRevision and fails with PreconditionFailed on mismatch",
    async run({ storage }) {
      await storage.create("/x/a", "v1");
      await storage.guaranteedUpdate("/x/a", () => "v2");
      await rejectsWith(storage.delete("/x/a", { expectedRevision: 1 }), "PreconditionFailed");
      assert.equal((await storage.get("/x/a")).value, "v2");
      const result = await storage.delete("/x/a", { expectedRevision: 2 });
      assert.deepEqual(result, { previous: { key: "/x/a", value: "v2", modRevision: 2, createRevision: 1 }, revision: 3 });
    },
  },
  {
    name: "delete of a missing key fails with KeyNotFound",
    async run({ storage }) {
      await rejectsWith(storage.delete("/x/none"), "KeyNotFound");
      await storage.create("/x/once", "v");
      await storage.delete("/x/once");
      await rejectsWith(storage.delete("/x/once"), "KeyNotFound");
    },
  },
  {
    name: "count counts the live keys under the prefix",
    async run({ storage }) {
      for (const key of ["/n/a", "/n/b", "/n/c", "/nb/a", "/m/a"]) await storage.create(key, "v");
      await storage.delete("/n/b");
      assert.equal(await storage.count("/n/"), 2);
      assert.equal(await storage.count("/n"), 3);
      assert.equal(await storage.count(""), 4);
      assert.equal(await storage.count("/zzz/"), 0);
    },
  },
  {
    name: "concurrent creates in the same tick all commit with distinct consecutive revisions",
    async run({ storage }) {
      const revisions = await Promise.all(Array.from({ length: 100 }, (_, i) => storage.create(`/batch/${i}`, `v${i}`)));
      assert.deepEqual(
        [...revisions].sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.equal(storage.currentRevision(), 100);
      assert.equal(await storage.count("/batch/"), 100);
      for (let i = 0; i < 100; i += 17) assert.equal((await storage.get(`/batch/${i}`)).modRevision, revisions[i]);
    },
  },
  {
    name: "a failing write in a batch fails alone and consumes no revision",
    async run({ storage }) {
      await storage.create("/batch/taken", "old");
      const results = await Promise.allSettled([
        storage.create("/batch/a", "a"),
        storage.create("/batch/taken", "new"),
        storage.create("/batch/b", "b"),
        storage.create("/batch/b", "b-again"),
        storage.delete("/batch/missing"),
        storage.create("/batch/c", "c"),
      ]);
      const statuses = results.map((result) => result.status);
      // The two creates of /batch/b race (etcd orders concurrent requests freely): exactly one wins.
      assert.deepEqual([statuses[0], statuses[1], statuses[4], statuses[5]], ["fulfilled", "rejected", "rejected", "fulfilled"]);
      assert.deepEqual([statuses[2], statuses[3]].sort(), ["fulfilled", "rejected"]);
      const winner = statuses[2] === "fulfilled" ? "b" : "b-again";
      const revisions = results.flatMap((result) => (result.status === "fulfilled" && typeof result.value === "number" ? [result.value] : []));
      assert.deepEqual(
        revisions.sort((a, b) => a - b),
        [2, 3, 4],
      );
      assert.equal(storage.currentRevision(), 4);
      assert.equal((await storage.get("/batch/taken")).value, "old");
      assert.equal((await storage.get("/batch/b")).value, winner);
    },
  },
  {
    name: "data and the revision counter persist across reopening",
    persistent: true,
    async run(context) {
      let storage = context.storage;
      await storage.create("/p/a", "a");
      await storage.create("/p/b", "b");
      await storage.guaranteedUpdate("/p/a", () => "a2");
      await storage.delete("/p/b"); // the newest row is a tombstone
      storage = await context.reopen();
      assert.equal(storage.currentRevision(), 4);
      assert.deepEqual(await storage.get("/p/a"), { key: "/p/a", value: "a2", modRevision: 3, createRevision: 1 });
      await rejectsWith(storage.get("/p/b"), "KeyNotFound");
      assert.equal((await storage.get("/p/b", { revision: 2 })).value, "b");
      assert.equal(await storage.create("/p/c", "c"), 5);
      await storage.delete("/p/c");
      await storage.compact(6); // drops the tombstone at 6, the newest revision
      storage = await context.reopen();
      assert.equal(storage.compactedRevision(), 6);
      assert.equal(storage.currentRevision(), 6);
      assert.equal(await storage.create("/p/d", "d"), 7);
      assert.deepEqual(
        (await storage.list("/p/")).items.map((item) => item.key),
        ["/p/a", "/p/d"],
      );
    },
  },
];
