import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LruCache } from "./lru-cache.js";

describe("LruCache", () => {
  it("forgets the least recently used entry beyond its capacity", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    assert.equal(cache.get("a"), 1);
    cache.set("c", 3);
    assert.equal(cache.get("b"), undefined);
    assert.equal(cache.get("a"), 1);
    assert.equal(cache.get("c"), 3);
    assert.equal(cache.size, 2);
  });

  it("gives recently used entries a second chance and still stays within capacity", () => {
    const cache = new LruCache<number, number>(3);
    for (const key of [1, 2, 3]) cache.set(key, key);
    for (const key of [1, 2, 3]) cache.get(key);
    cache.set(4, 4);
    assert.equal(cache.size, 3);
    assert.equal(cache.get(4), 4, "the newest entry is kept");
    assert.equal([1, 2, 3].filter((key) => cache.get(key) !== undefined).length, 2);
  });

  it("drops entries at their expiry", () => {
    let now = 0;
    const cache = new LruCache<string, string>(10, () => now);
    cache.set("k", "v", 100);
    now = 99;
    assert.equal(cache.get("k"), "v");
    now = 100;
    assert.equal(cache.get("k"), undefined);
    assert.equal(cache.size, 0);
  });
});
