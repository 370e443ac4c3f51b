import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { runStorageConformance } from "../conformance/conformance.js";
import Database from "better-sqlite3";
import { DamagedStoreError, SqliteStorage } from "./sqlite-storage.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "orch-sqlite-"));
}

runStorageConformance(
  "sqlite",
  async () => {
    const dir = tempDir();
    const path = join(dir, "state.db");
    return {
      storage: SqliteStorage.open(path),
      reopen: async () => SqliteStorage.open(path),
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { persistent: true },
);

describe("sqlite storage", () => {
  it("refuses a second open of the same file while it is held", async () => {
    const dir = tempDir();
    const path = join(dir, "state.db");
    const storage = SqliteStorage.open(path);
    try {
      await storage.create("/a", "v");
      // A second connection in this process: the exclusive lock makes it fail instead of forking the revision counter.
      assert.throws(() => {
        const second = SqliteStorage.open(path, { busyTimeoutMs: 0 });
        void second.close();
      });
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a list meeting a record a torn page left with NULL columns (quick_check passes), naming the file", async () => {
    const dir = tempDir();
    const path = join(dir, "state.db");
    try {
      const storage = SqliteStorage.open(path);
      await storage.create("/things/a", '{"n":1}');
      const revision = await storage.create("/things/b", '{"n":2}');
      await storage.close();
      // A record header cut by a crash reads back as zeros: serial type 0, NULL. Here the live value of b.
      const db = new Database(path);
      db.prepare("UPDATE kv SET value = NULL WHERE revision = ?").run(revision);
      assert.equal(db.pragma("quick_check", { simple: true }), "ok");
      db.close();
      const reopened = SqliteStorage.open(path);
      try {
        await assert.rejects(reopened.list("/things/"), (error: unknown) => {
          assert.ok(error instanceof DamagedStoreError, String(error));
          assert.match(
            error.message,
            /^storage: .*state\.db is damaged \(the listed version of \/things\/b at revision \d+ reads as a tombstone\); restore it from a snapshot/,
          );
          return true;
        });
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a small page cache until the start-up scan is over, then the serving size", async () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(join(dir, "state.db"));
    try {
      assert.equal(storage.pageCacheKiB(), 2048);
      await storage.create("/a", "v");
      storage.releasePageCache();
      assert.equal(storage.pageCacheKiB(), 16_384);
      assert.equal((await storage.get("/a")).value, "v");
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("holds a batch smaller than recent ones one event-loop iteration, so late writers join it", async () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(join(dir, "state.db"));
    // The batches the storage commits, by their sizes (the private transaction wrapped).
    const internals = storage as unknown as { applyBatch: (batch: readonly unknown[]) => unknown };
    const apply = internals.applyBatch;
    const batches: number[] = [];
    internals.applyBatch = (batch) => {
      batches.push(batch.length);
      return apply(batch);
    };
    /** One write now and one from a check-phase callback queued after it, as a request whose bytes the next poll phase reads. */
    const writeAndLateWrite = async (first: string, late: string): Promise<void> => {
      const now = storage.create(first, "v");
      const after = new Promise<number>((resolve, reject) => setImmediate(() => storage.create(late, "v").then(resolve, reject)));
      await Promise.all([now, after]);
    };
    try {
      // Lone writers: each batch is as large as recent ones and commits at once (no wait).
      await storage.create("/lone-1", "v");
      await writeAndLateWrite("/lone-2", "/late-2");
      assert.deepEqual(batches, [1, 1, 1]);
      // Three writers at once, then one of them alone: it waits an iteration and the late one joins it.
      await Promise.all(["/a", "/b", "/c"].map((key) => storage.create(key, "v")));
      await writeAndLateWrite("/d", "/late-d");
      assert.deepEqual(batches, [1, 1, 1, 3, 2]);
      assert.equal((await storage.get("/late-d")).modRevision, (await storage.get("/d")).modRevision + 1);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("commits a held batch when the store closes during its wait, and settles each write once", async () => {
    const dir = tempDir();
    const path = join(dir, "state.db");
    const storage = SqliteStorage.open(path);
    try {
      await Promise.all(["/a", "/b", "/c"].map((key) => storage.create(key, "v")));
      // A lone write after a batch of three is held one iteration; the store closes meanwhile.
      const held = storage.create("/held", "v");
      const settled: string[] = [];
      held.then(
        () => settled.push("ok"),
        (error: unknown) => settled.push(String(error)),
      );
      await new Promise<void>((resolve) => setImmediate(resolve));
      await storage.close();
      await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
      assert.deepEqual(settled, ["ok"]);
      await assert.rejects(storage.create("/after", "v"));
    } finally {
      await storage.close();
    }
    const reopened = SqliteStorage.open(path);
    try {
      assert.equal((await reopened.get("/held")).value, "v");
    } finally {
      await reopened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps every acknowledged write when the process is killed with SIGKILL", { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const path = join(dir, "state.db");
    const child = fileURLToPath(new URL("./durability-child.js", import.meta.url));
    try {
      const acknowledged = new Map<string, number>();
      const proc = spawn(process.execPath, [child, path, "16"], { stdio: ["ignore", "pipe", "inherit"] });
      let buffered = "";
      const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on("exit", (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        proc.on("error", reject);
        proc.on("exit", () => resolve());
        proc.stdout.setEncoding("utf8");
        proc.stdout.on("data", (chunk: string) => {
          buffered += chunk;
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? ""; // an incomplete line was not fully acknowledged to us
          for (const line of lines) {
            const [key, revision] = line.split(" ");
            if (key === undefined || revision === undefined) continue;
            acknowledged.set(key, Number(revision));
          }
          if (acknowledged.size >= 2000 && proc.exitCode === null && !proc.killed) proc.kill("SIGKILL");
        });
      });
      assert.equal(await exited, "SIGKILL");
      assert.ok(acknowledged.size >= 2000, `only ${acknowledged.size} writes acknowledged`);

      const storage = SqliteStorage.open(path);
      try {
        for (const [key, revision] of acknowledged) {
          const stored = await storage.get(key);
          assert.equal(stored.modRevision, revision, key);
        }
        const count = await storage.count("/durable/");
        assert.ok(count >= acknowledged.size);
        assert.equal(storage.currentRevision(), count, "revisions are dense: one per create");
        assert.equal(await storage.create("/after", "v"), count + 1);
      } finally {
        await storage.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
