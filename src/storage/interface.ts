/**
 * The Storage seam: a byte-oriented MVCC key-value store in the shape of etcd.
 *
 * Contract shared by every backend (checked by storage/conformance):
 * - One global revision counter. Every successful write (create, update, delete)
 *   commits at exactly `currentRevision() + 1`; revisions never repeat or go back,
 *   also across restarts of a persistent backend.
 * - A value's `modRevision` is the revision of the write that produced it; it is what the
 *   registry exposes as `metadata.resourceVersion`.
 * - A write's promise resolves only once the write is durable (for persistent backends).
 * - Reads at a revision older than the compaction point fail with `Compacted` (the compacted
 *   revision itself stays readable); reads at a revision newer than the current one fail with
 *   `FutureRevision`. Revisions must be non-negative integers (TypeError otherwise).
 * - `watch(prefix, fromRevision)` yields every change with revision > fromRevision whose key
 *   starts with prefix, in revision order, with no gap and no repeat; it fails with `Compacted`
 *   when fromRevision < compactedRevision.
 * - After close(), every call fails with `Closed`.
 * Values are opaque strings (the registry stores JSON text); keys are '/'-separated paths.
 * "Key order" is Unicode code point order (= UTF-8 byte order), identical in every backend.
 */
export interface Storage {
  /** Creates key; fails with KeyExists if it is live. Returns the new revision. */
  create(key: string, value: string): Promise<number>;

  /** Reads key at `revision` (0 or undefined = latest). Fails with KeyNotFound. */
  get(key: string, options?: ReadOptions): Promise<KeyValue>;

  /**
   * Lists live keys with the prefix at a revision, in key order, starting strictly after
   * `startAfter` when given, at most `limit` items (0 = no limit).
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /**
   * Read-modify-write with compare-and-swap on the key's modRevision, retried until
   * tryUpdate's result commits against the value it was computed from.
   * tryUpdate receives the current value (undefined when the key is absent and
   * `ignoreNotFound` is set; otherwise an absent key fails with KeyNotFound) and
   * returns the new value, or throws to abort (the error propagates unchanged, nothing is
   * written). Returning `{ delete: true }` deletes the key instead.
   * tryUpdate may run several times (once per conflict), so it must not have side effects.
   * Like kube's etcd3 store, nothing is written when the result equals the current value:
   * the current KeyValue is returned with `revision` = its modRevision. Deleting an absent key
   * (ignoreNotFound) also writes nothing and returns `{ value: undefined, revision: currentRevision() }`.
   */
  guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult>;

  /**
   * Deletes key if preconditions hold (`expectedRevision` compares the live modRevision).
   * Fails with KeyNotFound, or PreconditionFailed. Returns the deleted value and the delete's revision.
   */
  delete(key: string, options?: DeleteOptions): Promise<DeleteResult>;

  /**
   * Changes under prefix after fromRevision, until the signal aborts (the iterator then ends,
   * including a pending next()). The iterator throws on its first next() with Compacted when
   * fromRevision < compactedRevision(), and may throw Compacted later if a compaction overtakes
   * a watcher still replaying old history. A fromRevision newer than the current revision
   * simply waits for it. close() ends watches after they yield the events already committed.
   * Events are buffered per watcher without bound; slow consumers belong behind a watch cache.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent>;

  /** Number of live keys under prefix. */
  count(prefix: string): Promise<number>;

  /** The revision of the last committed write (0 for an empty store). */
  currentRevision(): number;

  /** The oldest revision still readable by get/list/watch (0 when nothing was compacted). */
  compactedRevision(): number;

  /**
   * Drops history older than revision (values superseded or deleted at or before it);
   * afterwards compactedRevision() = revision. A revision at or below compactedRevision() is a
   * no-op; one above currentRevision() fails with FutureRevision. Never changes currentRevision().
   */
  compact(revision: number): Promise<void>;

  /** Flushes pending writes (they commit), ends watches and closes files. Idempotent. */
  close(): Promise<void>;

  /**
   * Present on stores other servers write to as well (etcd): there `currentRevision()` only
   * knows what this server has seen, so a consistent read asks the store first. Absent on
   * stores one server owns (memory, SQLite), where currentRevision() is exact.
   */
  readonly shared?: SharedRevision;
}

/** The revision of a store several servers write to. */
export interface SharedRevision {
  /** The store's revision now (one linearizable read); also advances currentRevision(). */
  fetchRevision(): Promise<number>;
  /**
   * Asks every open watch of this store to report its progress soon (a watch's `onProgress`):
   * how a reader learns it has seen everything up to a revision when the last writes fell
   * outside its prefix (etcd's progress notifications).
   */
  requestProgress(): void;
}

export interface WatchOptions {
  /**
   * Called between events, in order: every change under the prefix up to `revision` has been
   * yielded (and the consumer has asked for the next one). Stores that never report progress
   * never call it.
   */
  readonly onProgress?: (revision: number) => void;
  /**
   * The consumer never reads `WatchEvent.previous` (the watch cache keeps its own): a store may
   * leave it undefined, and etcd then neither reads nor sends the previous values.
   */
  readonly withoutPrevious?: boolean;
}

export interface KeyValue {
  readonly key: string;
  readonly value: string;
  readonly modRevision: number;
  readonly createRevision: number;
}

export interface ReadOptions {
  /** 0 or undefined: latest. */
  readonly revision?: number;
}

export interface ListOptions extends ReadOptions {
  readonly limit?: number;
  readonly startAfter?: string;
}

export interface ListResult {
  readonly items: readonly KeyValue[];
  /** The revision the list was read at (the current revision when none was asked). */
  readonly revision: number;
  /** Live keys under the prefix after the last returned item (0 when complete). */
  readonly remaining: number;
}

export type UpdateFunction = (current: KeyValue | undefined) => string | { readonly delete: true } | Promise<string | { readonly delete: true }>;

export interface UpdateOptions {
  readonly ignoreNotFound?: boolean;
}

export interface UpdateResult {
  /** The stored value, or undefined when tryUpdate asked for delete. */
  readonly value: KeyValue | undefined;
  readonly revision: number;
  /** True when the key did not exist before (create through update). */
  readonly created: boolean;
}

export interface DeleteOptions {
  readonly expectedRevision?: number;
}

export interface DeleteResult {
  readonly previous: KeyValue;
  readonly revision: number;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly key: string;
  /** The revision of this change. */
  readonly revision: number;
  /** The new value (ADDED/MODIFIED) or undefined (DELETED). */
  readonly value: string | undefined;
  /** The value before the change (MODIFIED/DELETED); may be undefined when the watch was opened `withoutPrevious`. */
  readonly previous: string | undefined;
}
