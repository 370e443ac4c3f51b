import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ForwardingStorage } from "../storage/forwarding-storage.js";
import type { WatchEvent, WatchOptions } from "../storage/interface.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { inProcessServer } from "../testing/in-process.js";

type Json = Record<string, unknown>;

/** A store whose watch stream can be held back: the watch cache then lags the store, as under overload. */
class LaggingStorage extends ForwardingStorage {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  hold(): void {
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  resume(): void {
    this.release?.();
    this.held = undefined;
  }

  override watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent> {
    const events = this.inner.watch(prefix, fromRevision, signal, options);
    const lagging = this;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) {
          while (lagging.held !== undefined) await lagging.held;
          yield event;
        }
      },
    };
  }
}

function names(list: Json): string[] {
  return (list["items"] as Json[]).map((item) => String((item["metadata"] as Json)["name"]));
}

describe("a watch cache that lags the store", () => {
  const storage = new LaggingStorage(new MemoryStorage());
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  const base = "/api/v1/namespaces/lag/configmaps";

  before(async () => {
    server = await inProcessServer({ storage, futureRevisionWaitMs: 100 });
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "lag" } } })).status, 201);
    assert.equal((await server.call("POST", base, { body: { metadata: { name: "a" } } })).status, 201);
  });
  after(async () => {
    storage.resume();
    await server.stop();
  });

  it("serves a consistent list from the store once the cache's wait runs out (kube 1.31+), not 504", async () => {
    storage.hold();
    try {
      assert.equal((await server.call("POST", base, { body: { metadata: { name: "b" } } })).status, 201);
      const listed = await server.call("GET", base);
      assert.equal(listed.status, 200, JSON.stringify(listed.json));
      assert.deepEqual(names(listed.json), ["a", "b"]);
      // A too-new resourceVersion still waits and is 504: the store cannot serve the future either.
      const future = await server.call("GET", `${base}?resourceVersion=99999999`);
      assert.equal(future.status, 504);
    } finally {
      storage.resume();
    }
  });

  it("admits creates in a namespace with a quota: quota admission reads past the lagging cache", async () => {
    const quota = { metadata: { name: "q" }, spec: { hard: { "count/configmaps": "10" } } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/lag/resourcequotas", { body: quota })).status, 201);
    const usedNow = async (): Promise<number> => {
      const read = await server.call("GET", "/api/v1/namespaces/lag/resourcequotas/q");
      return Number(((read.json["status"] as Json)["used"] as Json)["count/configmaps"]);
    };
    const before = await usedNow();
    storage.hold();
    try {
      // The first create's writes (its quota charge, the object) are not in the cache when the second is admitted.
      for (const name of ["c", "d"]) {
        const created = await server.call("POST", base, { body: { metadata: { name } } });
        assert.equal(created.status, 201, JSON.stringify(created.json));
      }
    } finally {
      storage.resume();
    }
    assert.equal(await usedNow(), before + 2);
  });
});
