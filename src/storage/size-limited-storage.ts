import { StorageError } from "./errors.js";
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  Storage,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchEvent,
} from "./interface.js";

/** etcd's default `--max-request-bytes`: 1.5 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * etcd's request size limit, for every backend: a create or update whose key and value together
 * exceed `maxBytes` (UTF-8) fails with `RequestTooLarge` and writes nothing, as etcd refuses such
 * a request. The limit counts what is stored (after encryption, when this wraps the raw store).
 */
export class SizeLimitedStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    private readonly maxBytes: number = DEFAULT_MAX_REQUEST_BYTES,
  ) {}

  private check(key: string, value: string): void {
    if (Buffer.byteLength(key) + Buffer.byteLength(value) > this.maxBytes)
      throw new StorageError("RequestTooLarge", key, { message: `request is too large: over ${this.maxBytes} bytes` });
  }

  async create(key: string, value: string): Promise<number> {
    this.check(key, value);
    return this.inner.create(key, value);
  }

  get(key: string, options?: ReadOptions): Promise<KeyValue> {
    return this.inner.get(key, options);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }

  guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
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

  delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.inner.delete(key, options);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent> {
    return this.inner.watch(prefix, fromRevision, signal);
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  currentRevision(): number {
    return this.inner.currentRevision();
  }

  compactedRevision(): number {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
