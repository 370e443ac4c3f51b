import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { StorageError } from "../errors.js";
import type { WatchEvent } from "../interface.js";
import { grpcLibrary } from "./etcd-client.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";

/** Counts the watch streams grpc-js opens while `run` runs. */
async function grpcStreamsDuring(run: () => Promise<void>): Promise<number> {
  const prototype = grpcLibrary().Client.prototype;
  const original = prototype.makeBidiStreamRequest;
  let opened = 0;
  prototype.makeBidiStreamRequest = function (this: unknown, ...args: unknown[]) {
    opened++;
    return (original as (...inner: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await run();
  } finally {
    prototype.makeBidiStreamRequest = original;
  }
  return opened;
}

/** Watches `prefix` from the store's revision, writes `key`, and returns the first event and a progress report after it. */
async function watchOneWrite(storage: EtcdStorage, prefix: string, key: string): Promise<{ event: WatchEvent; progress: number }> {
  const stop = new AbortController();
  let progressed: ((revision: number) => void) | undefined;
  const progress = new Promise<number>((resolve) => (progressed = resolve));
  const from = storage.currentRevision();
  const events = storage.watch(prefix, from, stop.signal, { onProgress: (revision) => progressed?.(revision) })[Symbol.asyncIterator]();
  try {
    const next = events.next();
    const revision = await storage.create(key, "value");
    const first = await next;
    assert.ok(!first.done);
    // A progress report after the event: the consumer asks for the next one while the store asks etcd.
    const after = events.next();
    storage.shared.requestProgress();
    const reported = await progress;
    assert.ok(reported >= revision);
    void after.catch(() => {});
    return { event: first.value, progress: reported };
  } finally {
    stop.abort();
    await events.return?.();
  }
}

describe("EtcdStorage watches on the hand-framed HTTP/2 connection", { timeout: 60_000 }, () => {
  let cluster: EtcdCluster;
  before(async () => {
    cluster = await startEtcdCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  test("a watch and its progress requests go over the connection Range and Txn use, not through grpc-js", async () => {
    const storage = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/direct" });
    try {
      const opened = await grpcStreamsDuring(async () => {
        const { event } = await watchOneWrite(storage, "/a/", "/a/one");
        assert.equal(event.type, "ADDED");
        assert.equal(event.key, "/a/one");
        assert.equal(event.value, "value");
      });
      assert.equal(opened, 0, "no grpc-js watch stream");
    } finally {
      await storage.close();
    }
  });

  test("without the hand-framed connection (directUnary: false) the same watch goes through grpc-js", async () => {
    const storage = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/channel", directUnary: false });
    try {
      const opened = await grpcStreamsDuring(async () => {
        const { event } = await watchOneWrite(storage, "/a/", "/a/one");
        assert.equal(event.value, "value");
      });
      assert.equal(opened, 1);
    } finally {
      await storage.close();
    }
  });

  test("a watch on the connection ends with Unavailable when its member goes away, and a new watch works once it is back", async () => {
    const storage = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/lost", requestTimeoutMs: 2000 });
    const member = cluster.members[0];
    assert.ok(member !== undefined);
    try {
      await watchOneWrite(storage, "/a/", "/a/before");
      const stop = new AbortController();
      const events = storage.watch("/a/", storage.currentRevision(), stop.signal)[Symbol.asyncIterator]();
      const next = events.next();
      // Its failure is awaited after the kill: caught now, so it is never an unhandled rejection.
      const ended = next.then(
        () => undefined,
        (error: unknown) => error,
      );
      // Let the watch open before the member goes.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await member.kill();
      const error = await ended;
      assert.ok(error instanceof StorageError && error.code === "Unavailable", String(error));
      await member.restart();
      for (let attempt = 0; ; attempt++) {
        try {
          await storage.fetchRevision();
          break;
        } catch (error) {
          if (attempt > 200) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const { event } = await watchOneWrite(storage, "/a/", "/a/after");
      assert.equal(event.key, "/a/after");
    } finally {
      await storage.close();
    }
  });
});
