/**
 * Differential test: a seeded random workload (writes, compactions, reads at random
 * revisions, watch replays) must give identical answers from MemoryStorage, SqliteStorage and
 * EtcdStorage (on a throw-away etcd member).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { startEtcdCluster } from "./etcd/etcd-member.js";
import { EtcdStorage } from "./etcd/etcd-storage.js";
import type { Storage, WatchEvent } from "./interface.js";
import { MemoryStorage } from "./memory/memory-storage.js";
import { SqliteStorage } from "./sqlite/sqlite-storage.js";

/** mulberry32: a tiny deterministic PRNG. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs an operation and describes its outcome (value or error code) as a string. */
async function outcome(operation: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await operation()) ?? "undefined"; // compact() resolves to undefined
  } catch (error) {
    return error instanceof Error && "code" in error ? `error ${String(error.code)}` : `error ${String(error)}`;
  }
}

/**
 * Collects a watch's replay up to `upTo`. A remote store delivers history asynchronously, so the
 * end is found with a second watch over every key (each revision in (from, upTo] is exactly one
 * event there); the prefix watch must then yield exactly the events of its prefix, in order.
 */
async function replay(storage: Storage, prefix: string, from: number, upTo: number): Promise<WatchEvent[]> {
  const all = from >= upTo ? [] : await collect(storage, "", from, (event) => event.revision >= upTo);
  const expected = all.filter((event) => event.key.startsWith(prefix));
  let count = 0;
  const events = await collect(storage, prefix, from, () => ++count >= expected.length, expected.length === 0);
  assert.deepEqual(events, expected, `watch ${prefix} from ${from}`);
  return events;
}

/** Reads a watch until `done` says so (or, with `none`, only checks that it opens). */
async function collect(storage: Storage, prefix: string, from: number, done: (event: WatchEvent) => boolean, none = false): Promise<WatchEvent[]> {
  const controller = new AbortController();
  const events: WatchEvent[] = [];
  const iterator = storage.watch(prefix, from, controller.signal)[Symbol.asyncIterator]();
  try {
    if (none) {
      // Nothing to read: the first next() still reports Compacted; otherwise it would wait, so abort it.
      const first = iterator.next();
      const timer = setTimeout(() => controller.abort(), 20);
      const result = await first.finally(() => clearTimeout(timer));
      if (result.done !== true) events.push(result.value);
      return events;
    }
    for (;;) {
      const result = await iterator.next();
      if (result.done === true) return events;
      events.push(result.value);
      if (done(result.value)) return events;
    }
  } finally {
    controller.abort();
    await iterator.return?.();
  }
}

it("memory, sqlite and etcd backends agree on a random workload", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "orch-agree-"));
  const etcd = await startEtcdCluster();
  const backends: Storage[] = [new MemoryStorage(), SqliteStorage.open(join(dir, "state.db"))];
  const probe = await EtcdStorage.open({ endpoints: etcd.endpoints, prefix: "/agree" });
  backends.push(await EtcdStorage.open({ endpoints: etcd.endpoints, prefix: "/agree", revisionOffset: probe.currentRevision() }));
  await probe.close();
  const next = random(20240521);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const keys = Array.from({ length: 24 }, (_, i) => `/r/${pick(["a", "b", "ab", "a/b"])}/${i % 8}`);
  const prefixes = ["", "/r/", "/r/a", "/r/a/", "/r/ab/", "/r/a/b/", "/none/"];
  try {
    for (let step = 0; step < 2000; step++) {
      const roll = next();
      const key = pick(keys);
      const value = `v${step}`;
      const current = backends[0]?.currentRevision() ?? 0;
      const revision = Math.floor(next() * (current + 2));
      const coin = next() < 0.5;
      let operation: (storage: Storage) => Promise<unknown>;
      if (roll < 0.25) operation = (storage) => storage.create(key, value);
      else if (roll < 0.4) {
        const noop = next() < 0.2; // sometimes write back the current value (no write expected)
        operation = (storage) => storage.guaranteedUpdate(key, (old) => (noop && old !== undefined ? old.value : value), { ignoreNotFound: coin });
      } else if (roll < 0.45) operation = (storage) => storage.guaranteedUpdate(key, () => ({ delete: true }));
      else if (roll < 0.55) operation = (storage) => storage.delete(key, coin ? { expectedRevision: revision } : {});
      else if (roll < 0.555) {
        const target = Math.max(0, current - Math.floor(next() * 150));
        operation = (storage) => storage.compact(target);
      } else if (roll < 0.7) operation = (storage) => storage.get(key, { revision });
      else if (roll < 0.85) {
        const prefix = pick(prefixes);
        const limit = Math.floor(next() * 5);
        const startAfter = coin ? pick(keys) : undefined;
        operation = (storage) => storage.list(prefix, { revision, limit, ...(startAfter === undefined ? {} : { startAfter }) });
      } else if (roll < 0.9) {
        const prefix = pick(prefixes);
        operation = (storage) => storage.count(prefix);
      } else {
        const prefix = pick(prefixes);
        const from = Math.min(revision, current);
        operation = (storage) => replay(storage, prefix, from, current);
      }
      // All random choices are made above, so both backends run the identical operation.
      const results: string[] = [];
      for (const storage of backends) results.push(await outcome(() => operation(storage)));
      for (let i = 1; i < backends.length; i++) {
        assert.equal(results[i], results[0], `backend ${i}, step ${step}`);
        assert.equal(backends[i]?.currentRevision(), backends[0]?.currentRevision(), `backend ${i}, revision after step ${step}`);
        assert.equal(backends[i]?.compactedRevision(), backends[0]?.compactedRevision(), `backend ${i}, compacted after step ${step}`);
      }
    }
  } finally {
    for (const storage of backends) await storage.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
