/**
 * Storage on etcd v3: the store's revision is etcd's revision, every write is one etcd
 * transaction (compare-and-swap on the key's mod revision), reads at a revision are etcd ranges
 * at that revision (paged), watches are etcd watches, compaction is etcd's.
 *
 * `currentRevision()` is the newest etcd revision this client has seen in any response header
 * (its own writes, reads and watches); another server's writes advance it once this one reads or
 * watches past them.
 */
import { StorageError } from "../errors.js";
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
} from "../interface.js";
import { closedError, compactedError, normaliseLimit, updateTarget } from "../util.js";
import type { Compare, EtcdEvent, EtcdKeyValue, RangeResponse, RequestOp } from "./etcd-api.js";
import { EtcdClient, type EtcdClientOptions } from "./etcd-client.js";
import { UTF8_VALUES, type ValueEncoding } from "../value-encoding.js";
import { CoalescedRead } from "./coalesced-read.js";
import { decodeKey, encodeKey, keyAfter, prefixEnd } from "./etcd-keys.js";
import { type DrainableWatch, etcdWatch, type WatchHost } from "./etcd-watch.js";
import { type KnownValue, KnownValues } from "./known-values.js";
import { RecentWrites } from "./recent-writes.js";

export interface EtcdStorageOptions extends EtcdClientOptions {
  /** Prepended to every key (`--etcd-prefix`); keys are read back without it. Default "". */
  readonly prefix?: string;
  /**
   * Store revision = etcd revision − revisionOffset. Production uses 0 (resourceVersions are
   * etcd revisions); tests that give each case a fresh store on one shared etcd member set it
   * to the member's revision at the start, so the fresh store starts at revision 0.
   */
  readonly revisionOffset?: number;
  /** Items per etcd range when a list asks for everything (default 1000). */
  readonly pageSize?: number;
  /** How long close() lets watches deliver what was committed before it (default 2 s). */
  readonly closeDrainMs?: number;
  /** How values are laid out in etcd (default: the text as UTF-8; the server uses kube's storage encoding). */
  readonly values?: ValueEncoding;
}

/** Where a guaranteedUpdate attempt starts: the key's etcd value and its text, and whether etcd gave it just now. */
interface UpdateState {
  readonly kv: EtcdKeyValue | undefined;
  readonly value: KeyValue | undefined;
  readonly fresh: boolean;
}

/** kube's compaction coordination key: at etcd's root, not under `--etcd-prefix`. */
const COMPACT_REV_KEY = Buffer.from("compact_rev_key", "utf8");

/** What one server remembers between compaction turns: the key's version and etcd's revision at its last turn. */
export interface CompactionTurn {
  readonly version: number;
  readonly revision: number;
}

export interface CompactionResult {
  readonly next: CompactionTurn;
  /** The store revision compacted to, when this turn won and compacted. */
  readonly compacted: number | undefined;
}

export class EtcdStorage implements Storage {
  private readonly client: EtcdClient;
  private readonly prefix: string;
  private readonly offset: number;
  private readonly pageSize: number;
  private readonly closeDrainMs: number;
  private readonly values: ValueEncoding;
  /** Newest etcd revision seen in a response header. */
  private etcdRevision = 0;
  /** Oldest readable etcd revision as far as we know (0: nothing compacted). */
  private etcdCompacted = 0;
  private closed = false;
  /** Set once the compaction point is known; until then every call first learns it. */
  private initialized = false;
  private initializing: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly watches = new Set<DrainableWatch>();
  /** This server's writes until their watch events come back (events then skip the value's decode). */
  private readonly written = new RecentWrites();
  /** The newest value seen for recently touched keys: where an update starts (kube's cached existing object). */
  private readonly known = new KnownValues();
  private readonly host: WatchHost;
  /** Shares "what is etcd's revision now" reads between concurrent callers (see fetchRevision). */
  private readonly revisions = new CoalescedRead(async () => {
    const response = await this.client.range({ key: this.encode(""), limit: 1, countOnly: true }, "");
    this.observe(response.header.revision);
    return response.header.revision - this.offset;
  });

  private constructor(options: EtcdStorageOptions) {
    this.client = new EtcdClient(options);
    this.prefix = options.prefix ?? "";
    this.offset = options.revisionOffset ?? 0;
    this.pageSize = options.pageSize ?? 1000;
    this.closeDrainMs = options.closeDrainMs ?? 2000;
    this.values = options.values ?? UTF8_VALUES;
    this.host = {
      client: this.client,
      offset: this.offset,
      encode: (key) => this.encode(key),
      rangeEnd: (key) => prefixEnd(this.encode(key)),
      toEvent: (event) => this.toEvent(event),
      observe: (revision) => this.observe(revision),
      observeCompaction: (revision) => {
        this.etcdCompacted = Math.max(this.etcdCompacted, revision);
      },
      compactedRevision: () => this.compactedRevision(),
      isClosed: () => this.closed,
      ready: () => this.ensureReady(),
      register: (watch) => this.watches.add(watch),
      unregister: (watch) => this.watches.delete(watch),
      unchangedBetween: (prefix, from, to) => this.unchangedBetween(prefix, from, to),
    };
  }

  /**
   * The keys under `prefix` at `to` are those at `from`: none has a mod revision in (from, to] and
   * there are as many (a key deleted there would leave one fewer). etcd prunes by mod revision after
   * counting, so the first read lists at most one key (keys only) and its count is the total at `to`.
   */
  private async unchangedBetween(prefix: string, from: number, to: number): Promise<boolean> {
    if (to <= from) return true;
    const key = this.encode(prefix);
    const rangeEnd = prefixEnd(key);
    const [after, before] = await Promise.all([
      this.client.range({ key, rangeEnd, revision: to + this.offset, minModRevision: from + this.offset + 1, keysOnly: true, limit: 1 }, prefix),
      this.client.range({ key, rangeEnd, revision: from + this.offset, countOnly: true }, prefix),
    ]);
    return after.kvs.length === 0 && after.count === before.count;
  }

  /**
   * A store whose first call connects and learns etcd's current and compacted revisions (and
   * tries again on the next call when etcd did not answer). Never fails itself.
   */
  static connect(options: EtcdStorageOptions): EtcdStorage {
    return new EtcdStorage(options);
  }

  /** Connects and learns the current and the compacted revision; fails when etcd does not answer. */
  static async open(options: EtcdStorageOptions): Promise<EtcdStorage> {
    const storage = new EtcdStorage(options);
    try {
      await storage.ensureReady();
    } catch (error) {
      storage.client.close();
      throw error;
    }
    return storage;
  }

  /** Resolves when etcd answers a linearizable read (it has a leader and a quorum) within timeoutMs. */
  async checkHealth(timeoutMs: number): Promise<void> {
    if (this.closed) throw closedError("");
    const response = await this.client.range({ key: this.encode(""), limit: 1, countOnly: true }, "", timeoutMs);
    this.observe(response.header.revision);
  }

  /**
   * The etcd revision right now (a linearizable read); also advances currentRevision(). Calls
   * share reads: a call joins the next read to be SENT (never one already on the wire, which may
   * have been answered before the call began), and at most one read is in flight; so one etcd
   * round trip serves every call that arrived while the previous one was out, and each still gets
   * a revision at least as new as every write committed before it was made.
   */
  fetchRevision(): Promise<number> {
    return this.track("", () => this.revisions.next());
  }

  create(key: string, value: string): Promise<number> {
    return this.track(key, async () => {
      const etcdKey = this.encode(key);
      const bytes = this.values.encode(key, value);
      this.rememberWrite(key, bytes, value);
      const response = await this.client
        .txn(
          {
            compare: [{ result: "EQUAL", target: "CREATE", key: etcdKey, createRevision: 0 }],
            success: [{ requestPut: { key: etcdKey, value: bytes } }],
            failure: [],
          },
          key,
        )
        .catch((error: unknown) => {
          this.written.forget(key, bytes);
          throw error;
        });
      this.observe(response.header.revision);
      if (!response.succeeded) {
        this.written.forget(key, bytes);
        throw new StorageError("KeyExists", key);
      }
      const etcdRevision = response.header.revision;
      this.known.set(key, { kv: { key: etcdKey, createRevision: etcdRevision, modRevision: etcdRevision, version: 1, value: bytes }, value });
      return response.header.revision - this.offset;
    });
  }

  get(key: string, options: ReadOptions = {}): Promise<KeyValue> {
    return this.track(key, async () => {
      const revision = this.readRevision(key, options.revision);
      const response = await this.range(key, { key: this.encode(key), revision });
      const kv = response.kvs[0];
      if (kv === undefined) throw new StorageError("KeyNotFound", key);
      return this.toKeyValue(kv);
    });
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.track(prefix, async () => {
      let revision = this.readRevision(prefix, options.revision);
      const limit = normaliseLimit(options.limit);
      const start = this.encode(prefix);
      const end = prefixEnd(start);
      let from = start;
      if (options.startAfter !== undefined) {
        const after = keyAfter(this.encode(options.startAfter));
        if (Buffer.compare(after, from) > 0) from = after;
      }
      const items: KeyValue[] = [];
      let remaining = 0;
      // One etcd range per page, every page at the revision of the first.
      for (;;) {
        const want = limit === 0 ? this.pageSize : Math.min(this.pageSize, limit - items.length);
        const response = await this.range(prefix, { key: from, rangeEnd: end, limit: want, revision });
        if (revision === 0) revision = response.header.revision;
        for (const kv of response.kvs) items.push(this.toKeyValue(kv));
        remaining = response.count - response.kvs.length;
        const last = response.kvs[response.kvs.length - 1];
        if (!response.more || last === undefined || (limit !== 0 && items.length >= limit)) break;
        from = keyAfter(last.key);
      }
      return { items, revision: revision - this.offset, remaining };
    });
  }

  /**
   * kube's GuaranteedUpdate: the first attempt starts from the value this store last saw for the
   * key (`KnownValues`, kube's cached existing object) when it has one, else from a read. A state
   * that did not come from etcd just now is never trusted for an answer of its own: when tryUpdate
   * fails on it, or finds nothing to change, the key is read and tried again; a write from it
   * compares the mod revision, so a stale one fails and the failure branch brings the live value.
   */
  async guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.track(key, async () => {
      const etcdKey = this.encode(key);
      const read = async (): Promise<UpdateState> => {
        const kv = (await this.range(key, { key: etcdKey })).kvs[0];
        return { kv, value: kv === undefined ? undefined : this.toKeyValue(kv), fresh: true };
      };
      const known = this.known.get(key);
      let state: UpdateState = known === undefined ? await read() : { kv: known.kv, value: this.knownKeyValue(key, known), fresh: false };
      for (;;) {
        const { kv: current, value: currentValue, fresh } = state;
        if (current === undefined && options.ignoreNotFound !== true) throw new StorageError("KeyNotFound", key);
        let target: string | null;
        try {
          target = updateTarget(await tryUpdate(currentValue));
        } catch (error) {
          // It may have failed on a stale value: only a current one's failure is the answer.
          if (fresh) throw error;
          state = await read();
          continue;
        }
        if (target === null && currentValue === undefined) return { value: undefined, revision: this.currentRevision(), created: false };
        const bytes = target === null ? undefined : this.values.encode(key, target);
        // Unchanged when the text or the stored bytes are equal (kube compares bytes).
        if (
          current !== undefined &&
          currentValue !== undefined &&
          (currentValue.value === target || (bytes !== undefined && Buffer.from(current.value).equals(bytes)))
        ) {
          if (!fresh) {
            // Unchanged against a remembered value: confirm against etcd before answering so.
            state = await read();
            continue;
          }
          return { value: currentValue, revision: currentValue.modRevision, created: false };
        }
        const operation: RequestOp = bytes === undefined ? { requestDeleteRange: { key: etcdKey } } : { requestPut: { key: etcdKey, value: bytes } };
        if (bytes !== undefined && target !== null) this.rememberWrite(key, bytes, target);
        const forget = (): void => {
          if (bytes !== undefined) this.written.forget(key, bytes);
        };
        const response = await this.client
          .txn(
            {
              // An absent key compares as mod revision 0.
              compare: [{ result: "EQUAL", target: "MOD", key: etcdKey, modRevision: current?.modRevision ?? 0 }],
              success: [operation],
              // On conflict, the failure branch reads the new value for the next attempt.
              failure: [{ requestRange: { key: etcdKey } }],
            },
            key,
          )
          .catch((error: unknown) => {
            forget();
            throw error;
          });
        this.observe(response.header.revision);
        if (!response.succeeded) {
          forget();
          const live = response.responses[0]?.responseRange?.kvs[0];
          state = { kv: live, value: live === undefined ? undefined : this.toKeyValue(live), fresh: true };
          continue;
        }
        const etcdRevision = response.header.revision;
        const revision = etcdRevision - this.offset;
        if (target === null || bytes === undefined) {
          this.known.deleted(key, etcdRevision);
          return { value: undefined, revision, created: false };
        }
        const createRevision = currentValue?.createRevision ?? revision;
        this.known.set(key, {
          kv: { key: etcdKey, createRevision: createRevision + this.offset, modRevision: etcdRevision, version: 0, value: bytes },
          value: target,
        });
        return { value: { key, value: target, modRevision: revision, createRevision }, revision, created: currentValue === undefined };
      }
    });
  }

  delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    return this.track(key, async () => {
      const etcdKey = this.encode(key);
      const compare: Compare[] = [{ result: "GREATER", target: "CREATE", key: etcdKey, createRevision: 0 }];
      if (options.expectedRevision !== undefined) {
        compare.push({ result: "EQUAL", target: "MOD", key: etcdKey, modRevision: options.expectedRevision + this.offset });
      }
      const response = await this.client.txn(
        { compare, success: [{ requestDeleteRange: { key: etcdKey, prevKv: true } }], failure: [{ requestRange: { key: etcdKey } }] },
        key,
      );
      this.observe(response.header.revision);
      if (!response.succeeded) {
        const live = response.responses[0]?.responseRange?.kvs[0];
        if (live === undefined) throw new StorageError("KeyNotFound", key);
        const found = live.modRevision - this.offset;
        throw new StorageError("PreconditionFailed", key, {
          revision: found,
          message: `expected revision ${String(options.expectedRevision)}, found ${found}: ${key}`,
        });
      }
      this.known.deleted(key, response.header.revision);
      const previous = response.responses[0]?.responseDeleteRange?.prevKvs[0];
      if (previous === undefined) throw new StorageError("KeyNotFound", key);
      return { previous: this.toKeyValue(previous), revision: response.header.revision - this.offset };
    });
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal, options?: WatchOptions): AsyncIterable<WatchEvent> {
    return etcdWatch(this.host, prefix, fromRevision, signal, options);
  }

  /** Other servers write to the same etcd: consistent reads ask etcd for its revision. */
  readonly shared: SharedRevision = {
    fetchRevision: () => this.fetchRevision(),
    requestProgress: () => {
      for (const watch of this.watches) watch.requestProgress();
    },
  };

  count(prefix: string): Promise<number> {
    return this.track(prefix, async () => {
      const start = this.encode(prefix);
      const response = await this.range(prefix, { key: start, rangeEnd: prefixEnd(start), countOnly: true });
      return response.count;
    });
  }

  currentRevision(): number {
    return Math.max(0, this.etcdRevision - this.offset);
  }

  compactedRevision(): number {
    return Math.max(0, this.etcdCompacted - this.offset);
  }

  compact(revision: number): Promise<void> {
    return this.track("", async () => {
      if (!Number.isSafeInteger(revision) || revision < 0) throw new TypeError(`invalid compact revision ${String(revision)}`);
      if (revision > this.currentRevision()) await this.fetchRevision();
      const current = this.currentRevision();
      if (revision > current) {
        throw new StorageError("FutureRevision", "", { revision: current, message: `cannot compact to future revision ${revision}` });
      }
      if (revision <= this.compactedRevision()) return;
      try {
        const response = await this.client.compact({ revision: revision + this.offset });
        this.observe(response.header.revision);
      } catch (error) {
        // Another server compacted past it already: nothing left to do.
        if (!(error instanceof StorageError && error.code === "Compacted")) throw error;
        await this.refreshCompacted();
      }
      this.etcdCompacted = Math.max(this.etcdCompacted, revision + this.offset);
    });
  }

  /**
   * One turn of kube's coordinated compaction (one per interval on every server sharing the etcd):
   * a compare-and-swap on the version of `compact_rev_key` (outside the prefix, as kube spells it)
   * lets one server per interval win; the winner records the revision it saw at its previous turn
   * and compacts to it. A loser (or a first turn) learns the key's version and the current revision
   * for its next turn, so whichever server wins next compacts to a revision at least one interval old.
   */
  compactTurn(turn: CompactionTurn): Promise<CompactionResult> {
    return this.track("", async () => {
      const response = await this.client.txn(
        {
          compare: [{ result: "EQUAL", target: "VERSION", key: COMPACT_REV_KEY, version: turn.version }],
          success: [{ requestPut: { key: COMPACT_REV_KEY, value: Buffer.from(String(turn.revision), "utf8") } }],
          failure: [{ requestRange: { key: COMPACT_REV_KEY } }],
        },
        "",
      );
      this.observe(response.header.revision);
      const revision = response.header.revision;
      if (!response.succeeded) {
        const version = response.responses[0]?.responseRange?.kvs[0]?.version ?? 0;
        return { next: { version, revision }, compacted: undefined };
      }
      const next = { version: turn.version + 1, revision };
      // The first turn compacts nothing (kube does not compact at start-up).
      if (turn.revision === 0 || turn.revision <= this.etcdCompacted) return { next, compacted: undefined };
      try {
        await this.client.compact({ revision: turn.revision });
      } catch (error) {
        if (!(error instanceof StorageError && error.code === "Compacted")) throw error;
        await this.refreshCompacted();
        return { next, compacted: undefined };
      }
      this.etcdCompacted = Math.max(this.etcdCompacted, turn.revision);
      return { next, compacted: turn.revision - this.offset };
    });
  }

  /** The database file size of the member the client reaches (Maintenance.Status `dbSize`; `apiserver_storage_size_bytes`). */
  async databaseSizeBytes(): Promise<number> {
    return (await this.client.status()).dbSize;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    // Watches deliver what was committed before close, bounded in time.
    const target = this.currentRevision();
    const drained = Promise.all([...this.watches].map((watch) => watch.drain(target)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.closeDrainMs)))]);
    clearTimeout(timer);
    this.client.close();
  }

  /**
   * Learns etcd's compaction point by bisecting for the oldest revision a range can read
   * (etcd does not report it otherwise); about log2(revision) small reads.
   */
  private async refreshCompacted(): Promise<void> {
    const probe = async (revision: number): Promise<boolean> => {
      try {
        await this.client.range({ key: this.encode(""), limit: 1, countOnly: true, revision }, "");
        return true;
      } catch (error) {
        if (error instanceof StorageError && error.code === "Compacted") return false;
        throw error;
      }
    };
    const head = await this.client.range({ key: this.encode(""), limit: 1, countOnly: true }, "");
    this.observe(head.header.revision);
    let low = Math.max(1, this.etcdCompacted);
    let high = head.header.revision;
    if (await probe(low)) {
      this.etcdCompacted = low === 1 ? 0 : low;
      return;
    }
    // Invariant: low is compacted, high is readable.
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await probe(middle)) high = middle;
      else low = middle;
    }
    this.etcdCompacted = high;
  }

  /** A Range, with the revision errors made the store's. */
  private async range(key: string, request: Parameters<EtcdClient["range"]>[0]): Promise<RangeResponse> {
    try {
      const response = await this.client.range(request, key);
      this.observe(response.header.revision);
      return response;
    } catch (error) {
      if (error instanceof StorageError && error.code === "Compacted") {
        await this.refreshCompacted();
        throw compactedError(key, (request.revision ?? 0) - this.offset, this.compactedRevision());
      }
      if (error instanceof StorageError && error.code === "FutureRevision") {
        const requested = (request.revision ?? 0) - this.offset;
        throw new StorageError("FutureRevision", key, {
          revision: this.currentRevision(),
          message: `revision ${requested} is newer than the current revision ${this.currentRevision()}`,
        });
      }
      throw error;
    }
  }

  /** Validates a read revision and turns it into etcd's (0 = latest). */
  private readRevision(key: string, requested: number | undefined): number {
    const revision = requested ?? 0;
    if (!Number.isSafeInteger(revision) || revision < 0) throw new TypeError(`invalid revision ${String(requested)} for ${key}`);
    return revision === 0 ? 0 : revision + this.offset;
  }

  private observe(etcdRevision: number): void {
    if (etcdRevision > this.etcdRevision) this.etcdRevision = etcdRevision;
  }

  private encode(key: string): Buffer {
    return encodeKey(this.prefix, key);
  }

  private toKeyValue(kv: EtcdKeyValue): KeyValue {
    const key = decodeKey(this.prefix, kv.key);
    return {
      key,
      value: this.values.decode(key, kv.value),
      modRevision: kv.modRevision - this.offset,
      createRevision: kv.createRevision - this.offset,
    };
  }

  private toEvent(event: EtcdEvent): WatchEvent | undefined {
    const kv = event.kv;
    if (kv === null) return undefined;
    const key = decodeKey(this.prefix, kv.key);
    const previous = event.prevKv === null ? undefined : this.values.decode(key, event.prevKv.value);
    const revision = kv.modRevision - this.offset;
    if (event.type === "DELETE") {
      this.known.deleted(key, kv.modRevision);
      return { type: "DELETED", key, revision, value: undefined, previous };
    }
    const type = kv.createRevision === kv.modRevision ? "ADDED" : "MODIFIED";
    const value = this.written.take(key, kv.value) ?? this.values.decode(key, kv.value);
    // Copies: the event's bytes are views into the whole gRPC message, which an entry must not keep.
    this.known.set(key, { kv: { ...kv, key: Buffer.from(kv.key), value: Buffer.from(kv.value) }, value });
    return { type, key, revision, value, previous };
  }

  /** A remembered value as the store's KeyValue (store revisions). */
  private knownKeyValue(key: string, known: KnownValue): KeyValue {
    return { key, value: known.value, modRevision: known.kv.modRevision - this.offset, createRevision: known.kv.createRevision - this.offset };
  }

  /** Remembers a write for its watch event while a watch is open (none open: nothing would take it). */
  private rememberWrite(key: string, bytes: Uint8Array, value: string): void {
    if (this.watches.size > 0) this.written.remember(key, bytes, value);
  }

  /** Connects and learns etcd's revisions (once; again after a failure). */
  ensureReady(): Promise<void> {
    if (this.initialized) return Promise.resolve();
    this.initializing ??= this.refreshCompacted().then(
      () => {
        this.initialized = true;
      },
      (error: unknown) => {
        this.initializing = undefined;
        throw error;
      },
    );
    return this.initializing;
  }

  /** Runs an operation unless closed (once the store is initialized), and lets close() wait for it. */
  private track<T>(key: string, operation: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError(key));
    const promise = this.initialized ? operation() : this.ensureReady().then(operation);
    this.inFlight.add(promise);
    const forget = (): void => {
      this.inFlight.delete(promise);
    };
    promise.then(forget, forget);
    return promise;
  }
}
