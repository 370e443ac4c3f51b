import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startCompactor } from "./compactor.js";
import { MemoryStorage } from "./memory/memory-storage.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe("compactor", () => {
  it("compacts to the revision that was current one tick earlier", async () => {
    const storage = new MemoryStorage();
    await storage.create("/a", "1");
    await storage.create("/b", "1");
    const targets: number[] = [];
    const compact = storage.compact.bind(storage);
    storage.compact = async (revision: number) => {
      targets.push(revision);
      await compact(revision);
    };
    const compactor = startCompactor(storage, { intervalMs: 30 });
    try {
      await until(() => targets.length === 1, "the first compaction");
      assert.deepEqual(targets, [2], "the first tick compacts to the revision at start");
      await storage.create("/c", "1");
      await storage.create("/d", "1");
      assert.equal(storage.compactedRevision(), 2);
      await until(() => storage.compactedRevision() === 4, "compaction of the new writes");
      assert.deepEqual(targets, [2, 4]);
      assert.equal(storage.currentRevision(), 4);
      assert.equal((await storage.get("/d")).value, "1");
    } finally {
      compactor.stop();
      await storage.close();
    }
  });

  it("stops quietly when the storage is closed", async () => {
    const storage = new MemoryStorage();
    await storage.create("/a", "1");
    const errors: unknown[] = [];
    const compactor = startCompactor(storage, { intervalMs: 10, onError: (error) => errors.push(error) });
    await storage.close();
    await sleep(50);
    compactor.stop();
    assert.deepEqual(errors, []);
  });
});
