// Loading a large store without decoding it (issue #21): cached objects made from the stored
// text (version spliced in on first read, labels parsed on first need), the tree bulk-loaded, and
// the metadata fields a follower asks for parsed alone.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { ApiObject } from "../../api/object.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import { SqliteStorage } from "../../storage/sqlite/sqlite-storage.js";
import { inProcessServer } from "../../testing/in-process.js";
import { StoredValueError } from "../stored-object.js";
import { CacheObjects, readPage } from "./cache-objects.js";
import { Cacher } from "./cacher.js";
import { cachedMetadata, decodeToCache, type ResourceCodec, toCachedObject } from "./cached-object.js";
import { metadataFields } from "./splice-version.js";

function codec(lazy: boolean): ResourceCodec {
  return {
    decode: (value, revision) => {
      const object = JSON.parse(value) as ApiObject;
      object.metadata.resourceVersion = String(revision);
      return object;
    },
    extraFieldsOf: () => undefined,
    decodeOnlyStamps: lazy,
    noExtraFields: lazy,
    kind: "ConfigMap",
    apiVersion: "v1",
  };
}

const PREFIX = "/configmaps/";

function stored(namespace: string | undefined, name: string, labels?: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...(labels === undefined ? {} : { labels }), uid: `uid-${name}` },
    data: { payload: "x".repeat(100) },
  });
}

describe("cached objects made without decoding", () => {
  it("read as the decoded ones do: JSON with the version, name, namespace, labels", () => {
    const cases: [string, string][] = [
      [`${PREFIX}team/a`, stored("team", "a", { app: "web", tier: "front" })],
      [`${PREFIX}team/b`, stored("team", "b")],
      [`${PREFIX}cluster-wide`, stored(undefined, "cluster-wide", { scope: "all" })],
      // Not compact JSON: the version cannot be spliced in, the object is encoded again instead.
      [`${PREFIX}team/spaced`, JSON.stringify(JSON.parse(stored("team", "spaced", { k: "v" })), null, 2)],
    ];
    for (const [key, value] of cases) {
      const lazy = toCachedObject(codec(true), key, value, 42, PREFIX);
      const eager = decodeToCache(codec(false), key, value, 42).cached;
      assert.equal(lazy.name, eager.name, key);
      assert.equal(lazy.namespace, eager.namespace, key);
      assert.deepEqual(lazy.labels, eager.labels, key);
      assert.equal(lazy.json, eager.json, key);
      assert.equal(lazy.extraFields, undefined);
      assert.equal(lazy.revision, 42);
    }
  });

  it("give a follower the metadata fields it names, before and after the JSON is read", () => {
    const object = toCachedObject(codec(true), `${PREFIX}team/a`, stored("team", "a", { app: "web" }), 7, PREFIX);
    const fields = new Set(["uid", "name", "labels"]);
    assert.deepEqual(cachedMetadata(object, fields), { name: "a", labels: { app: "web" }, uid: "uid-a" });
    assert.match(object.json, /"resourceVersion":"7"/);
    assert.deepEqual(cachedMetadata(object, fields), { name: "a", labels: { app: "web" }, uid: "uid-a" });
  });
});

describe("metadataFields", () => {
  it("gives the named fields of metadata exactly as parsing the whole object gives them", () => {
    const safeKey = fc.string().filter((key) => key !== "__proto__");
    fc.assert(
      fc.property(
        fc.dictionary(safeKey, fc.jsonValue(), { maxKeys: 8 }),
        fc.dictionary(safeKey, fc.jsonValue(), { maxKeys: 3 }),
        fc.array(safeKey, { maxLength: 4 }),
        (metadata, rest, extraNames) => {
          const text = JSON.stringify({ apiVersion: "v1", ...rest, metadata });
          const keys = Object.keys(metadata);
          const names = new Set([...keys.filter((_, index) => index % 2 === 0), ...extraNames]);
          const expected: Record<string, unknown> = {};
          const parsed = (JSON.parse(text) as { metadata: Record<string, unknown> }).metadata;
          for (const [name, value] of Object.entries(parsed)) if (names.has(name)) expected[name] = value;
          assert.deepEqual(metadataFields(text, names), expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("answers undefined for text not of the compact shape", () => {
    assert.equal(metadataFields('{ "metadata": {"uid":"x"}}', new Set(["uid"])), undefined);
    assert.equal(metadataFields('{"kind":"X"}', new Set(["uid"])), undefined);
    assert.deepEqual(metadataFields('{"metadata":{}}', new Set(["uid"])), {});
  });
});

describe("CacheObjects.reset (bulk load)", () => {
  it("holds every object in key order and takes writes after", () => {
    const keys = Array.from({ length: 1000 }, (_, index) => `${PREFIX}ns-${index % 7}/item-${index}`);
    const shuffled = [...keys].sort(() => Math.random() - 0.5);
    const objects = new CacheObjects(PREFIX);
    objects.reset(shuffled.map((key, index) => toCachedObject(codec(true), key, stored("x", "y"), index + 1, PREFIX)));
    assert.equal(objects.size, 1000);
    const listed = readPage(objects.tree, PREFIX, { limit: 0 }).items.map((object) => object.key);
    assert.deepEqual(listed, [...keys].sort());
    assert.equal(objects.countUnder(`${PREFIX}ns-3/`), keys.filter((key) => key.startsWith(`${PREFIX}ns-3/`)).length);
    const added = toCachedObject(codec(true), `${PREFIX}ns-3/zz`, stored("ns-3", "zz"), 2000, PREFIX);
    assert.equal(objects.set(added.key, added), undefined);
    assert.ok(objects.delete(`${PREFIX}ns-0/item-0`));
    assert.equal(objects.size, 1000);
    assert.equal(objects.get(added.key), added);
  });
});

describe("a restart loads the store without decoding it", () => {
  it("serves the same objects, label selections and owner collection as before the restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orch-lazy-load-"));
    try {
      const file = join(dir, "store.db");
      const base = "/api/v1/namespaces/lazy/configmaps";
      const first = await inProcessServer({ storage: SqliteStorage.open(file) });
      const before: unknown[] = [];
      try {
        await first.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "lazy" } } });
        for (let index = 0; index < 20; index++) {
          const labels = { parity: index % 2 === 0 ? "even" : "odd" };
          const reply = await first.call("POST", base, { body: { metadata: { name: `cm-${index}`, labels }, data: { index: String(index) } } });
          assert.equal(reply.status, 201);
        }
        const owner = await first.call("POST", base, { body: { metadata: { name: "owner" } } });
        const ownerUid = String((owner.json["metadata"] as Record<string, unknown>)["uid"]);
        const dependent = {
          metadata: { name: "dependent", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: ownerUid }] },
        };
        assert.equal((await first.call("POST", base, { body: dependent })).status, 201);
        for (let index = 0; index < 20; index++) before.push((await first.call("GET", `${base}/cm-${index}`)).json);
      } finally {
        await first.stop();
      }
      const second = await inProcessServer({ storage: SqliteStorage.open(file) });
      try {
        for (let index = 0; index < 20; index++) assert.deepEqual((await second.call("GET", `${base}/cm-${index}`)).json, before[index]);
        const even = await second.call("GET", `${base}?labelSelector=parity%3Deven`);
        const names = (even.json["items"] as { metadata: { name: string } }[]).map((item) => item.metadata.name);
        assert.deepEqual(names, ["cm-0", "cm-10", "cm-12", "cm-14", "cm-16", "cm-18", "cm-2", "cm-4", "cm-6", "cm-8"]);
        // The collector's graph was built from the loaded metadata: the stored dependent of a deleted owner goes.
        assert.equal((await second.call("DELETE", `${base}/owner`)).status, 200);
        for (let attempt = 0; attempt < 200; attempt++) {
          if ((await second.call("GET", `${base}/dependent`)).status === 404) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal((await second.call("GET", `${base}/dependent`)).status, 404);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loading a store with a torn value", () => {
  it("fails the load with a StoredValueError naming the key and revision, for kinds loaded without decoding too", async () => {
    const whole = stored("team", "whole");
    // What a torn SQLite page reads back as: the value's tail (or a run inside it) zeroed.
    const torn = [`${whole.slice(0, -40)}${"\u0000".repeat(40)}`, `${whole.slice(0, 30)}${"\u0000".repeat(8)}${whole.slice(38)}`, whole.slice(0, -5)];
    for (const [index, value] of torn.entries()) {
      for (const lazy of [true, false]) {
        const storage = new MemoryStorage();
        await storage.create(`${PREFIX}team/whole`, whole);
        const revision = await storage.create(`${PREFIX}team/torn`, value);
        const cacher = new Cacher(storage);
        cacher.register(PREFIX, codec(lazy));
        await assert.rejects(cacher.start(), (error: unknown) => {
          assert.ok(error instanceof StoredValueError, `case ${index} (lazy ${lazy}): ${String(error)}`);
          assert.equal(error.key, `${PREFIX}team/torn`);
          assert.equal(error.revision, revision);
          assert.match(error.message, new RegExp(`^the stored value of ${PREFIX}team/torn at revision ${revision} (holds a NUL|is not a whole JSON object)`));
          return true;
        });
        await cacher.stop();
        await storage.close();
      }
    }
  });
});
