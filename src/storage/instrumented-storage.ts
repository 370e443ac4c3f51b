import type { Tracer } from "@opentelemetry/api";
import { inSpan } from "../util/tracing.js";
import { ForwardingStorage } from "./forwarding-storage.js";
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
} from "./interface.js";

/** kube's storage operation names, as the `operation` label of `etcd_request_duration_seconds`. */
export type StorageOperation = "create" | "get" | "list" | "update" | "delete" | "count";

/** Told of each storage call: its operation, the key or prefix it named, how long it took, and whether it failed. */
export type StorageObserver = (operation: StorageOperation, key: string, seconds: number, failed: boolean) => void;

/**
 * A store that reports the latency of each call to `observe` (the server turns it into kube's
 * etcd request metrics) and, given a tracer, records each call as a span `storage.<operation>`
 * under the request's; otherwise it passes everything through. Watches are not timed.
 */
export class InstrumentedStorage extends ForwardingStorage {
  constructor(
    inner: Storage,
    private readonly observe: StorageObserver,
    private readonly tracer?: Tracer,
  ) {
    super(inner);
  }

  private timed<T>(operation: StorageOperation, key: string, call: () => Promise<T>): Promise<T> {
    if (this.tracer === undefined) return this.measured(operation, key, call);
    return inSpan(this.tracer, `storage.${operation}`, () => this.measured(operation, key, call), { "storage.key": key });
  }

  private async measured<T>(operation: StorageOperation, key: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await call();
      this.observe(operation, key, (performance.now() - started) / 1000, false);
      return result;
    } catch (error) {
      this.observe(operation, key, (performance.now() - started) / 1000, true);
      throw error;
    }
  }

  override create(key: string, value: string): Promise<number> {
    return this.timed("create", key, () => this.inner.create(key, value));
  }

  override get(key: string, options?: ReadOptions): Promise<KeyValue> {
    return this.timed("get", key, () => this.inner.get(key, options));
  }

  override list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.timed("list", prefix, () => this.inner.list(prefix, options));
  }

  override guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
    return this.timed("update", key, () => this.inner.guaranteedUpdate(key, tryUpdate, options));
  }

  override delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.timed("delete", key, () => this.inner.delete(key, options));
  }

  override count(prefix: string): Promise<number> {
    return this.timed("count", prefix, () => this.inner.count(prefix));
  }
}
