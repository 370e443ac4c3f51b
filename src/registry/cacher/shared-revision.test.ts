import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import type { SharedRevision, Storage, WatchEvent, WatchOptions } from "../../storage/interface.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import type { ResourceCodec } from "./cached-object.js";
import { Cacher } from "./cacher.js";

const PREFIX = "/core/configmaps/";
const OUTSIDE = "/outside/";

const codec: ResourceCodec = {
  decode(value, revision) {
    const object = JSON.parse(value) as ApiObject;
    object.metadata.resourceVersion = String(revision);
    return object;
  },
  extraFieldsOf: () => undefined,
  kind: "ConfigMap",
  apiVersion: "v1",
};

/**
 * One server's view of a store other servers write to (as etcd is): writes made through `inner`
 * are another server's; `currentRevision()` is only what this view's watch has delivered; events
 * wait behind `hold()` until `release()` (a slow watch stream); keys under OUTSIDE are not in the
 * watched range (another tenant's), so only a progress report tells the view it passed them.
 */
class SharedView implements Storage {
  private seen = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};
  private progressWanted: (() => void) | undefined;
  progressRequests = 0;

  constructor(readonly inner: MemoryStorage) {}

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  readonly shared: SharedRevision = {
    fetchRevision: async () => this.inner.currentRevision(),
    requestProgress: () => {
      this.progressRequests++;
      this.progressWanted?.();
    },
  };

  async *watch(prefix: string, fromRevision: number, signal: AbortSignal, options: WatchOptions = {}): AsyncIterable<WatchEvent> {
    const iterator = this.inner.watch(prefix, fromRevision, signal)[Symbol.asyncIterator]();
    let consumed = fromRevision;
    let reported = fromRevision;
    let pending = iterator.next();
    for (;;) {
      const progress = new Promise<"progress">((resolve) => (this.progressWanted = () => resolve("progress")));
      const next = await Promise.race([pending, progress]);
      if (next === "progress") {
        // Everything up to `consumed` was yielded or lies outside the range.
        if (consumed > reported) options.onProgress?.(consumed);
        reported = Math.max(reported, consumed);
        continue;
      }
      if (next.done === true) return;
      pending = iterator.next();
      await this.gate;
      consumed = next.value.revision;
      if (next.value.key.startsWith(OUTSIDE)) continue;
      this.seen = Math.max(this.seen, next.value.revision);
      yield next.value;
      reported = Math.max(reported, next.value.revision);
    }
  }

  currentRevision(): number {
    return this.seen;
  }

  create(key: string, value: string): Promise<number> {
    return this.inner.create(key, value);
  }
  get: Storage["get"] = (key, options) => this.inner.get(key, options);
  list: Storage["list"] = (prefix, options) => this.inner.list(prefix, options);
  guaranteedUpdate: Storage["guaranteedUpdate"] = (key, tryUpdate, options) => this.inner.guaranteedUpdate(key, tryUpdate, options);
  delete: Storage["delete"] = (key, options) => this.inner.delete(key, options);
  count: Storage["count"] = (prefix) => this.inner.count(prefix);
  compactedRevision = (): number => this.inner.compactedRevision();
  compact = (revision: number): Promise<void> => this.inner.compact(revision);
  close = (): Promise<void> => this.inner.close();
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns" } });
}

describe("Cacher.waitForCurrent() on a store other servers write to", () => {
  it("waits for the store's revision, not the revision this server has seen, before a consistent read", async () => {
    const view = new SharedView(new MemoryStorage());
    const cacher = new Cacher(view);
    const cache = cacher.register(PREFIX, codec);
    await cacher.start();
    try {
      view.hold();
      // Another server writes; this server's watch has not delivered it yet.
      await view.inner.create(`${PREFIX}ns/elsewhere`, configMap("elsewhere"));
      let settled = false;
      const waiting = cacher.waitForCurrent(5_000).then((reached) => {
        settled = true;
        return { reached, cached: cache.get(`${PREFIX}ns/elsewhere`) !== undefined };
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(settled, false, "the consistent read waited for the other server's write");
      view.release();
      assert.deepEqual(await waiting, { reached: true, cached: true });
    } finally {
      await cacher.stop();
    }
  });

  it("asks the watch for progress when the newest writes fell outside its range", async () => {
    const view = new SharedView(new MemoryStorage());
    const cacher = new Cacher(view);
    cacher.register(PREFIX, codec);
    await cacher.start();
    try {
      await view.inner.create(`${PREFIX}ns/inside`, configMap("inside"));
      await view.inner.create(`${OUTSIDE}other-tenant`, "x");
      const revision = view.inner.currentRevision();
      assert.equal(await cacher.waitForCurrent(3_000), true);
      assert.ok(cacher.revision >= revision, `the cache reached ${cacher.revision}, the store is at ${revision}`);
      assert.ok(view.progressRequests >= 1);
    } finally {
      await cacher.stop();
    }
  });

  it("answers false when the store does not tell its revision", async () => {
    const view = new SharedView(new MemoryStorage());
    const cacher = new Cacher(view);
    cacher.register(PREFIX, codec);
    await cacher.start();
    try {
      Object.defineProperty(view, "shared", { value: { fetchRevision: () => Promise.reject(new Error("down")), requestProgress: () => {} } });
      assert.equal(await cacher.waitForCurrent(1_000), false);
    } finally {
      await cacher.stop();
    }
  });
});
