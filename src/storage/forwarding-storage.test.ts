import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EncryptingStorage } from "./encryption/encrypting-storage.js";
import { InstrumentedStorage } from "./instrumented-storage.js";
import type { SharedRevision, Storage, WatchEvent, WatchOptions } from "./interface.js";
import { MemoryStorage } from "./memory/memory-storage.js";
import { SizeLimitedStorage } from "./size-limited-storage.js";
import type { EncryptionConfig } from "./encryption/encryption-config.js";

/** A memory store that says it is shared and records the watch options it is given. */
class SharedMemory extends MemoryStorage {
  readonly seen: (WatchOptions | undefined)[] = [];
  readonly shared: SharedRevision = { fetchRevision: async () => this.currentRevision(), requestProgress: () => {} };
  override watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent> {
    this.seen.push(options);
    return super.watch(prefix, fromRevision, signal);
  }
}

/** Every key stored as plain text. */
const PLAIN: EncryptionConfig = { chainFor: () => undefined, kmsProviders: [], close: () => {} };

describe("storage decorators", () => {
  it("pass the shared revision and watch options of the store beneath on (etcd's consistent reads need both)", async () => {
    const inner = new SharedMemory();
    const decorators: Storage[] = [new SizeLimitedStorage(inner), new InstrumentedStorage(inner, () => {}), new EncryptingStorage(inner, PLAIN)];
    for (const storage of decorators) {
      assert.equal(storage.shared, inner.shared, storage.constructor.name);
      const options: WatchOptions = { onProgress: () => {} };
      const controller = new AbortController();
      const iterator = storage.watch("/", 0, controller.signal, options)[Symbol.asyncIterator]();
      const pending = iterator.next();
      await inner.create(`/${storage.constructor.name}`, "1");
      await pending;
      controller.abort();
      assert.equal(inner.seen.at(-1), options, storage.constructor.name);
    }
    await inner.close();
  });
});
