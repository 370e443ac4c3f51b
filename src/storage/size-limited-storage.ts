import { ForwardingStorage } from "./forwarding-storage.js";
import { StorageError } from "./errors.js";
import type { Storage, UpdateFunction, UpdateOptions, UpdateResult } from "./interface.js";

/** etcd's default `--max-request-bytes`: 1.5 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * etcd's request size limit, for every backend: a create or update whose key and value together
 * exceed `maxBytes` (UTF-8) fails with `RequestTooLarge` and writes nothing, as etcd refuses such
 * a request. The limit counts what is stored (after encryption, when this wraps the raw store).
 */
export class SizeLimitedStorage extends ForwardingStorage {
  constructor(
    inner: Storage,
    private readonly maxBytes: number = DEFAULT_MAX_REQUEST_BYTES,
  ) {
    super(inner);
  }

  private check(key: string, value: string): void {
    if (Buffer.byteLength(key) + Buffer.byteLength(value) > this.maxBytes)
      throw new StorageError("RequestTooLarge", key, { message: `request is too large: over ${this.maxBytes} bytes` });
  }

  override async create(key: string, value: string): Promise<number> {
    this.check(key, value);
    return this.inner.create(key, value);
  }

  override guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
    return this.inner.guaranteedUpdate(
      key,
      async (current) => {
        const next = await tryUpdate(current);
        if (typeof next === "string") this.check(key, next);
        return next;
      },
      options,
    );
  }
}
