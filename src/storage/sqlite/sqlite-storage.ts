/**
 * Durable Storage on an embedded SQLite database (better-sqlite3, WAL, synchronous=FULL).
 *
 * Writes are group-committed: every write enqueues a PendingWrite; all writes queued within
 * one event-loop turn run in ONE transaction (one fsync) from a setImmediate callback — or, when
 * that batch is smaller than recent ones, within two turns, so that writers whose requests the
 * next poll phase reads join it instead of paying a commit of their own (`flushOrWait`).
 * Each write checks its own preconditions against the state left by the writes before it in
 * the batch and, when they fail, writes nothing and fails alone. Promises settle, and watch
 * events are published, only after COMMIT.
 *
 * better-sqlite3 is synchronous and this process is the only writer (the file is opened
 * with locking_mode=EXCLUSIVE), so reads run directly against the database: they can
 * never observe a transaction in progress, and the in-memory revision counter moves in
 * the same synchronous block as the commit.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { StorageError, isStorageError } from "../errors.js";
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
} from "../interface.js";
import { closedError, compareKeys, keySuccessor, normaliseLimit, prefixUpperBound, resolveReadRevision, updateTarget } from "../util.js";
import { WatchHub } from "../watch-hub.js";
import {
  NO_UPPER_BOUND,
  SCHEMA,
  SCHEMA_VERSION,
  decodeCount,
  decodeEventRow,
  decodeRawRow,
  decodeRow,
  prepareStatements,
  type Row,
  type Statements,
  type UpperBound,
} from "./schema.js";

/** A live version: a kv row whose value is not a tombstone. */
type LiveRow = Row & { readonly value: string };

interface Outcome {
  readonly revision: number;
  readonly createRevision: number;
  /** The live version the write replaced. */
  readonly previous: LiveRow | undefined;
}

interface PendingWrite {
  readonly key: string;
  /** Decides from the live version what to write: a value, or null to delete. Throws to fail this write alone. */
  plan(current: LiveRow | undefined): string | null;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

type Settlement = { readonly write: PendingWrite; readonly outcome: Outcome } | { readonly write: PendingWrite; readonly error: unknown };

interface BatchResult {
  readonly settlements: readonly Settlement[];
  /** Events of the successful writes, in revision order. */
  readonly events: readonly WatchEvent[];
  /** The revision of the batch's last successful write (the counter after COMMIT). */
  readonly revision: number;
}

/** A store file that cannot be trusted (corrupt, truncated, not a store): the server refuses to start on it. */
export class DamagedStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DamagedStoreError";
  }
}

function nonEmptyFile(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

/** SQLite's answers for a file that is not a sound database. */
function isSqliteDamage(error: unknown): boolean {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  return code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB") || code === "SQLITE_IOERR_SHORT_READ";
}

/** The refusal of the store at `path` for `cause`: names the damage and what to do about it, on one line. */
export function damagedStoreError(path: string, cause: unknown): DamagedStoreError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DamagedStoreError(`storage: ${path} is damaged (${reason}); restore it from a snapshot (snapshot restore) or move it away to start empty`, {
    cause,
  });
}

/**
 * Checks a store that was on disk before this open: opening replays the WAL's committed frames,
 * so a torn WAL tail is already gone here; what remains must pass quick_check (every page
 * reachable, every b-tree well formed: a truncated main file fails here) and hold the schema.
 */
function checkExisting(db: Database.Database, path: string): void {
  const verdicts = (db.pragma("quick_check(3)") as { quick_check: string }[]).map((row) => row.quick_check);
  // One line: the CLI prints the refusal as one.
  if (verdicts.length !== 1 || verdicts[0] !== "ok") throw damagedStoreError(path, new Error(`quick_check: ${verdicts.join("; ").replace(/\s*\n\s*/g, "; ")}`));
  const version: unknown = db.pragma("user_version", { simple: true });
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('kv', 'latest', 'meta')").get();
  if (version !== SCHEMA_VERSION || decodeCount(tables) !== 3) throw damagedStoreError(path, new Error("the store's schema is missing"));
}

/** Revisions compacted per transaction, so a large compaction does not block the event loop for long. */
const COMPACT_CHUNK = 10_000;
/**
 * SQLite's page cache, sized on purpose (issue #21). Serving: 16 MiB, the index pages of ~100k
 * keys and the recent writes (current values are read from the watch cache and the OS page cache
 * backs the file, so more would hold a second copy of objects the watch cache already holds).
 * Start-up: 2 MiB while the watch cache reads the whole store, then the serving size.
 */
const SERVING_CACHE_KIB = 16_384;
const STARTUP_CACHE_KIB = 2048;

export class SqliteStorage implements Storage {
  private revision: number;
  private compacted: number;
  private closed = false;
  private closing: Promise<void> | undefined;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private compaction: Promise<void> = Promise.resolve();
  private readonly stmts: Statements;
  private readonly hub: WatchHub;
  private readonly applyBatch: (batch: readonly PendingWrite[]) => BatchResult;
  /** Sizes of the last two committed batches (see `flushOrWait`). */
  private lastBatch = 0;
  private batchBefore = 0;
  /**
   * The check-phase callback of a scheduled commit. A batch smaller than the larger of the last
   * two waits one more event-loop iteration: an immediate queued from a check-phase callback runs
   * in the next iteration's check phase, after that iteration's poll phase (which does not block
   * while immediates are pending) has read what arrived meanwhile — writers of recent batches that
   * are not back yet are usually on their way. Issue #13: ten pod creates in flight on one HTTP/2
   * connection fell into two groups answered by separate commits (the client reads a >16 KiB run
   * of answers in two chunks and sends the next requests in two writes; the second group's bytes
   * arrive while the first is being handled), so 5.2 creates shared each fsync instead of 9.6, and
   * every create paid twice the commit's fsync, socket reads and writes and the process's wake-up;
   * waiting once merges the groups (9.4 per fsync). A batch as large as recent ones, a lone
   * writer's included, commits at once, as before.
   */
  private readonly flushOrWait = (): void => {
    if (this.queue.length < Math.max(this.lastBatch, this.batchBefore)) setImmediate(this.flushNow);
    else this.flush();
  };
  private readonly flushNow = (): void => {
    this.flush();
  };

  private constructor(
    private readonly db: Database.Database,
    /** The file, for the message of a damage found while reading (`damagedStoreError`). */
    private readonly path: string,
  ) {
    this.stmts = prepareStatements(db);
    this.compacted = decodeCount(this.stmts.getMeta.get("compacted")) ?? 0;
    this.revision = Math.max(decodeCount(this.stmts.maxRevision.get()) ?? 0, this.compacted);
    this.hub = new WatchHub({
      currentRevision: () => this.revision,
      compactedRevision: () => this.compacted,
      readEvents: (prefix, after, upTo, limit) => this.readEvents(prefix, after, upTo, limit),
    });
    this.applyBatch = db.transaction((batch: readonly PendingWrite[]) => this.writeBatch(batch));
  }

  /**
   * Opens (creating the file, its directory and the schema if needed) the database at path.
   * Fails with SQLITE_BUSY if another connection holds it, after waiting `busyTimeoutMs`
   * (default 5000) for it to go away, e.g. a previous server instance still shutting down.
   * A store that exists is checked before it is served: SQLite replays the committed part of
   * the WAL (a torn tail is dropped), then `PRAGMA quick_check` must pass and the schema must be
   * there; otherwise this throws a DamagedStoreError, never serving a store it cannot trust.
   */
  static open(path: string, options: { readonly busyTimeoutMs?: number } = {}): SqliteStorage {
    const onDisk = path !== ":memory:" && !path.startsWith("file:");
    if (onDisk) mkdirSync(dirname(path), { recursive: true });
    const existed = onDisk && (nonEmptyFile(path) || nonEmptyFile(`${path}-wal`));
    let db: Database.Database;
    try {
      db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw damagedStoreError(path, error);
    }
    try {
      // Exclusive locking: a second server on the same file would fork the revision counter.
      db.pragma("locking_mode = EXCLUSIVE");
      const mode: unknown = db.pragma("journal_mode = WAL", { simple: true });
      if (mode !== "wal" && path !== ":memory:") throw new Error(`storage: could not enable WAL mode on ${path} (got ${String(mode)})`);
      db.pragma("synchronous = FULL");
      // A small page cache (2 MiB) until the start-up scan is over (releasePageCache): the scan
      // reads every page once and never again, and a full cache's pages, freed afterwards, stay
      // in the process as malloc's fragmented free memory (10k objects: 21 MiB of heap vs 10 MiB).
      db.pragma(`cache_size = -${STARTUP_CACHE_KIB}`);
      db.pragma("temp_store = MEMORY");
      if (existed) checkExisting(db, path);
      const version: unknown = db.pragma("user_version", { simple: true });
      if (version !== 0 && version !== SCHEMA_VERSION) throw new Error(`storage: unsupported schema version ${String(version)} in ${path}`);
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      return new SqliteStorage(db, path);
    } catch (error) {
      db.close();
      throw isSqliteDamage(error) ? damagedStoreError(path, error) : error;
    }
  }

  async create(key: string, value: string): Promise<number> {
    const outcome = await this.enqueue(key, (current) => {
      if (current !== undefined) throw new StorageError("KeyExists", key);
      return value;
    });
    return outcome.revision;
  }

  async get(key: string, options: ReadOptions = {}): Promise<KeyValue> {
    this.assertOpen(key);
    const revision = resolveReadRevision(key, options.revision, this.revision, this.compacted);
    const raw: unknown = revision === this.revision ? this.stmts.getLive.get(key) : this.stmts.getAt.get(key, revision);
    const row = raw === undefined ? undefined : decodeRow(raw);
    if (row === undefined || !isLive(row)) throw new StorageError("KeyNotFound", key);
    return toKeyValue(row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen(prefix);
    const revision = resolveReadRevision(prefix, options.revision, this.revision, this.compacted);
    const limit = normaliseLimit(options.limit);
    const upper: UpperBound = prefixUpperBound(prefix) ?? NO_UPPER_BOUND;
    let from = prefix;
    if (options.startAfter !== undefined && compareKeys(keySuccessor(options.startAfter), from) > 0) {
      from = keySuccessor(options.startAfter);
    }
    const latest = revision === this.revision;
    const sqlLimit = limit === 0 ? -1 : limit;
    const rows = latest ? this.stmts.listLive.all(from, upper, sqlLimit) : this.stmts.listAt.all(from, upper, revision, sqlLimit);
    const items = rows.map((raw) => this.listedRow(raw));
    let remaining = 0;
    const last = items[items.length - 1];
    if (limit > 0 && items.length === limit && last !== undefined) {
      const after = keySuccessor(last.key);
      const counted: unknown = latest ? this.stmts.countLive.get(after, upper) : this.stmts.countAt.get(after, upper, revision);
      remaining = decodeCount(counted) ?? 0;
    }
    return { items, revision, remaining };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    for (;;) {
      this.assertOpen(key);
      const current = this.readLive(key);
      if (current === undefined && options.ignoreNotFound !== true) throw new StorageError("KeyNotFound", key);
      const currentValue = current === undefined ? undefined : toKeyValue(current);
      const target = updateTarget(await tryUpdate(currentValue));
      this.assertOpen(key);
      const expected = current?.revision ?? 0;
      if ((this.readLive(key)?.revision ?? 0) !== expected) continue; // changed while tryUpdate ran
      if (target === null && current === undefined) return { value: undefined, revision: this.revision, created: false };
      if (currentValue !== undefined && target === currentValue.value) {
        return { value: currentValue, revision: currentValue.modRevision, created: false };
      }
      let outcome: Outcome;
      try {
        outcome = await this.enqueue(key, (live) => {
          if ((live?.revision ?? 0) !== expected) throw new StorageError("RevisionConflict", key);
          return target;
        });
      } catch (error) {
        if (isStorageError(error, "RevisionConflict")) continue;
        throw error;
      }
      const { revision, createRevision } = outcome;
      if (target === null) return { value: undefined, revision, created: false };
      return { value: { key, value: target, modRevision: revision, createRevision }, revision, created: current === undefined };
    }
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const outcome = await this.enqueue(key, (current) => {
      if (current === undefined) throw new StorageError("KeyNotFound", key);
      if (options.expectedRevision !== undefined && options.expectedRevision !== current.revision) {
        throw new StorageError("PreconditionFailed", key, {
          revision: current.revision,
          message: `expected revision ${options.expectedRevision}, found ${current.revision}: ${key}`,
        });
      }
      return null;
    });
    if (outcome.previous === undefined) throw new Error("storage: delete replaced no live version");
    return { previous: toKeyValue(outcome.previous), revision: outcome.revision };
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent> {
    return this.hub.watch(prefix, fromRevision, signal);
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen(prefix);
    return decodeCount(this.stmts.countLive.get(prefix, prefixUpperBound(prefix) ?? NO_UPPER_BOUND)) ?? 0;
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /**
   * Compacts in chunks of COMPACT_CHUNK revisions, one transaction each; compactedRevision()
   * advances chunk by chunk (a chunk only drops rows at or below its own upper bound, so
   * reads at or above that bound are unaffected, and a crash mid-way leaves a consistent state).
   */
  compact(revision: number): Promise<void> {
    const run = this.compaction.then(() => this.compactTo(revision));
    this.compaction = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes a consistent copy of the database to `file` with SQLite's online backup API, through
   * this connection (it holds the file exclusively): every page in one step, so the copy is the
   * state after one commit; writes queued meanwhile carry on.
   */
  async backup(file: string): Promise<void> {
    this.assertOpen("");
    await this.db.backup(file, { progress: () => 0x7fffffff });
  }

  /**
   * Gives the page cache back (SQLite's `shrink_memory`) and grows its limit from the start-up
   * size to the serving size. Called once the watch cache has read the whole store at start-up:
   * that scan fills the cache with pages which later reads never ask for again (they are served
   * from the watch cache); writes fill it with what they touch. Without this call the cache stays
   * at the start-up size (2 MiB).
   */
  releasePageCache(): void {
    if (this.closing !== undefined) return;
    this.db.pragma("shrink_memory");
    this.db.pragma(`cache_size = -${SERVING_CACHE_KIB}`);
  }

  /** The page cache's limit in KiB (SQLite's `cache_size`, which a negative value gives in KiB). */
  pageCacheKiB(): number {
    return -Number(this.db.pragma("cache_size", { simple: true }));
  }

  /** The database file's allocated size: page_count × page_size (`apiserver_storage_size_bytes`; the WAL is not counted). */
  databaseSizeBytes(): number {
    const pages = Number(this.db.pragma("page_count", { simple: true }));
    const pageSize = Number(this.db.pragma("page_size", { simple: true }));
    return pages * pageSize;
  }

  /**
   * Checks a store file (a snapshot) without changing it: SQLite's integrity check, the schema
   * version, and the revision and live keys it holds. Throws with the reason when it is not a good store.
   */
  static inspect(path: string): { readonly revision: number; readonly keys: number } {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const integrity: unknown = db.pragma("integrity_check", { simple: true });
      if (integrity !== "ok") throw new Error(`${path} fails SQLite's integrity check: ${String(integrity)}`);
      const version: unknown = db.pragma("user_version", { simple: true });
      if (version !== SCHEMA_VERSION) throw new Error(`${path} is not a store of this server (schema version ${String(version)}, expected ${SCHEMA_VERSION})`);
      const revision = db.prepare("SELECT COALESCE(MAX(revision), 0) AS revision FROM kv").get() as { revision: number };
      const keys = db.prepare("SELECT COUNT(*) AS keys FROM latest JOIN kv USING (key, revision) WHERE kv.value IS NOT NULL").get() as { keys: number };
      return { revision: revision.revision, keys: keys.keys };
    } finally {
      db.close();
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.flush(); // pending writes commit before the doors close
    this.closed = true;
    await this.compaction; // stops at its next chunk boundary
    this.hub.close();
    this.db.close();
  }

  private async compactTo(revision: number): Promise<void> {
    this.assertOpen("");
    if (!Number.isSafeInteger(revision) || revision < 0) throw new TypeError(`invalid compact revision ${String(revision)}`);
    if (revision > this.revision) {
      throw new StorageError("FutureRevision", "", { revision: this.revision, message: `cannot compact to future revision ${revision}` });
    }
    while (this.compacted < revision && !this.closed) {
      const from = this.compacted;
      const upTo = Math.min(revision, from + COMPACT_CHUNK);
      this.db.transaction(() => {
        this.stmts.compactSuperseded.run(from, upTo);
        this.stmts.compactTombstones.run(from, upTo);
        this.stmts.setMeta.run("compacted", upTo);
      })();
      this.compacted = upTo;
      if (upTo < revision) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private enqueue(key: string, plan: (current: LiveRow | undefined) => string | null): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      if (this.closed) {
        reject(closedError(key));
        return;
      }
      this.queue.push({ key, plan, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushOrWait);
      }
    });
  }

  /** Commits every queued write in one transaction, then publishes events and settles promises. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    this.batchBefore = this.lastBatch;
    this.lastBatch = batch.length;
    let result: BatchResult;
    try {
      result = this.applyBatch(batch);
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    this.revision = result.revision;
    this.hub.publish(result.events);
    for (const settlement of result.settlements) {
      if ("outcome" in settlement) settlement.write.resolve(settlement.outcome);
      else settlement.write.reject(settlement.error);
    }
  }

  /** Runs inside the batch transaction; must not touch instance state (a failed COMMIT discards its results). */
  private writeBatch(batch: readonly PendingWrite[]): BatchResult {
    const settlements: Settlement[] = [];
    const events: WatchEvent[] = [];
    let revision = this.revision;
    for (const write of batch) {
      const current = this.readLive(write.key);
      let target: string | null;
      try {
        target = write.plan(current);
        if (target === null && current === undefined) throw new StorageError("KeyNotFound", write.key);
      } catch (error) {
        settlements.push({ write, error });
        continue;
      }
      revision++;
      const createRevision = current?.createRevision ?? revision;
      this.stmts.insertKv.run(revision, write.key, createRevision, target, current?.revision ?? null);
      if (target === null) this.stmts.deleteLatest.run(write.key);
      else this.stmts.upsertLatest.run(write.key, revision);
      settlements.push({ write, outcome: { revision, createRevision, previous: current } });
      events.push({
        type: target === null ? "DELETED" : current === undefined ? "ADDED" : "MODIFIED",
        key: write.key,
        revision,
        value: target ?? undefined,
        previous: current?.value,
      });
    }
    return { settlements, events, revision };
  }

  /**
   * A row of a list: a live version. A row that does not decode, or a tombstone where only live
   * versions are asked for, is a record torn by a crash that quick_check lets through (it checks
   * the pages' b-trees, not the records in them: a record header cut short reads back as zeros,
   * i.e. NULL columns), so it is a DamagedStoreError, which refuses a start-up load.
   */
  private listedRow(raw: unknown): KeyValue {
    let row: Row;
    try {
      row = decodeRawRow(raw);
    } catch (error) {
      throw damagedStoreError(this.path, error);
    }
    if (!isLive(row))
      throw damagedStoreError(
        this.path,
        new Error(`the listed version of ${JSON.stringify(row.key).slice(1, -1)} at revision ${row.revision} reads as a tombstone`),
      );
    return toKeyValue(row);
  }

  private readLive(key: string): LiveRow | undefined {
    const raw: unknown = this.stmts.getLive.get(key);
    if (raw === undefined) return undefined;
    const row = decodeRow(raw);
    return isLive(row) ? row : undefined;
  }

  private readEvents(prefix: string, after: number, upTo: number, limit: number): WatchEvent[] {
    const upper = prefixUpperBound(prefix) ?? NO_UPPER_BOUND;
    return this.stmts.events.all(after, upTo, prefix, upper, limit).map((raw): WatchEvent => {
      const row = decodeEventRow(raw);
      return {
        type: row.value === null ? "DELETED" : row.prevRevision === null ? "ADDED" : "MODIFIED",
        key: row.key,
        revision: row.revision,
        value: row.value ?? undefined,
        previous: row.previous ?? undefined,
      };
    });
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}

function isLive(row: Row): row is LiveRow {
  return row.value !== null;
}

function toKeyValue(row: LiveRow): KeyValue {
  return { key: row.key, value: row.value, modRevision: row.revision, createRevision: row.createRevision };
}
