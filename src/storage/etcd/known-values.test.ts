import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KnownValues } from "./known-values.js";

const known = (modRevision: number, value: string) => ({
  kv: { key: Buffer.from("k"), createRevision: 1, modRevision, version: 1, value: Buffer.from(value) },
  value,
});

describe("KnownValues", () => {
  test("keeps the newest value of a key, never an older one", () => {
    const values = new KnownValues();
    values.set("/a", known(5, "five"));
    values.set("/a", known(3, "three"));
    assert.equal(values.get("/a")?.value, "five");
    values.set("/a", known(7, "seven"));
    assert.equal(values.get("/a")?.value, "seven");
  });

  test("a delete at a later revision forgets the key; an older delete does not", () => {
    const values = new KnownValues();
    values.set("/a", known(5, "five"));
    values.deleted("/a", 4);
    assert.equal(values.get("/a")?.value, "five");
    values.deleted("/a", 6);
    assert.equal(values.get("/a"), undefined);
  });

  test("drops the least recently used past the count and byte bounds", () => {
    const byCount = new KnownValues(2, 1_000_000);
    byCount.set("/a", known(1, "a"));
    byCount.set("/b", known(2, "b"));
    byCount.get("/a");
    byCount.set("/c", known(3, "c"));
    assert.equal(byCount.size, 2);
    assert.equal(byCount.get("/b"), undefined, "the least recently used went");
    assert.equal(byCount.get("/a")?.value, "a");
    const byBytes = new KnownValues(100, 15);
    byBytes.set("/a", known(1, "12345"));
    byBytes.set("/b", known(2, "12345"));
    assert.equal(byBytes.size, 1);
    assert.equal(byBytes.get("/b")?.value, "12345");
  });
});
