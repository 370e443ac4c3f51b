import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecentWrites } from "./recent-writes.js";

const bytes = (text: string): Uint8Array => Buffer.from(text, "utf8");

describe("RecentWrites", () => {
  test("gives the written text back once, for the exact bytes only", () => {
    const writes = new RecentWrites();
    const written = bytes("k8s\0one");
    writes.remember("/a", written, '{"a":1}');
    assert.equal(writes.take("/a", bytes("k8s\0two")), undefined, "other bytes at the key");
    assert.equal(writes.take("/b", bytes("k8s\0one")), undefined, "the same bytes at another key");
    assert.equal(writes.take("/a", Uint8Array.from(written)), '{"a":1}', "equal bytes in another buffer");
    assert.equal(writes.take("/a", written), undefined, "used up");
    assert.equal(writes.size, 0);
  });

  test("a newer write of a key replaces the older one, and forgetting the older one keeps it", () => {
    const writes = new RecentWrites();
    const older = bytes("v1");
    const newer = bytes("v2");
    writes.remember("/a", older, "one");
    writes.remember("/a", newer, "two");
    writes.forget("/a", older);
    assert.equal(writes.take("/a", older), undefined);
    assert.equal(writes.take("/a", newer), "two");
    writes.remember("/a", older, "one");
    writes.forget("/a", older);
    assert.equal(writes.size, 0);
  });

  test("drops the oldest entries past the count and the byte bounds", () => {
    const byCount = new RecentWrites(2, 1000);
    for (const key of ["/a", "/b", "/c"]) byCount.remember(key, bytes(key), key);
    assert.equal(byCount.size, 2);
    assert.equal(byCount.take("/a", bytes("/a")), undefined);
    assert.equal(byCount.take("/c", bytes("/c")), "/c");
    const byBytes = new RecentWrites(100, 10);
    byBytes.remember("/a", bytes("123456"), "a");
    byBytes.remember("/b", bytes("123456"), "b");
    assert.equal(byBytes.size, 1);
    assert.equal(byBytes.take("/b", bytes("123456")), "b");
  });
});
