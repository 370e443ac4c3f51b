import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  SharedRevision,
  Storage,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchEvent,
  WatchOptions,
} from "./interface.js";

/**
 * The base of Storage decorators: every call, `shared` and watch options go to `inner` unchanged,
 * so a decorator overrides only what it changes and never drops what the store beneath offers
 * (etcd's shared revision, a watch's progress callback).
 */
export class ForwardingStorage implements Storage {
  constructor(protected readonly inner: Storage) {}

  get shared(): SharedRevision | undefined {
    return this.inner.shared;
  }

  create(key: string, value: string): Promise<number> {
    return this.inner.create(key, value);
  }

  get(key: string, options?: ReadOptions): Promise<KeyValue> {
    return this.inner.get(key, options);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }

  guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
    return this.inner.guaranteedUpdate(key, tryUpdate, options);
  }

  delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.inner.delete(key, options);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent> {
    return this.inner.watch(prefix, fromRevision, signal, options);
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
