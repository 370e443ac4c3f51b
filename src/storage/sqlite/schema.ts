/**
 * SQLite schema, prepared statements and row decoding for SqliteStorage.
 *
 * Layout:
 * - `kv` is an append-only log: one row per write, `revision` is the global revision
 *   (INTEGER PRIMARY KEY = rowid). `value IS NULL` marks a delete (tombstone).
 *   `prev_revision` is the revision of the live version this write replaced (NULL for a
 *   create), which gives watch events their `previous` value and drives compaction.
 * - `latest` maps each live key to the revision of its current version (deleted keys are
 *   removed), so reads at the current revision never scan history.
 * - `meta` holds `compacted`, the compacted revision.
 * The revision counter is max(max(kv.revision), compacted): compaction may delete the
 * newest row (a tombstone) but always records a compacted revision at least that high.
 */
import type Database from "better-sqlite3";

export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  value TEXT NULL,
  prev_revision INTEGER NULL
);
CREATE INDEX IF NOT EXISTS kv_key_revision ON kv (key, revision);
CREATE TABLE IF NOT EXISTS latest (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** One kv row. `value === null` is a tombstone. */
export interface Row {
  readonly revision: number;
  readonly key: string;
  readonly createRevision: number;
  readonly value: string | null;
  readonly prevRevision: number | null;
}

/** A kv row joined with the value it replaced (watch replay). */
export interface EventRow extends Row {
  readonly previous: string | null;
}

const ROW = "kv.revision AS revision, kv.key AS key, kv.create_revision AS createRevision, kv.value AS value, kv.prev_revision AS prevRevision";

type StatementName =
  | "insertKv"
  | "upsertLatest"
  | "deleteLatest"
  | "getLive"
  | "getAt"
  | "listLive"
  | "countLive"
  | "listAt"
  | "countAt"
  | "events"
  | "maxRevision"
  | "getMeta"
  | "setMeta"
  | "compactSuperseded"
  | "compactTombstones";

/** Key range parameters: lower bound (inclusive) and upper bound (exclusive; a BLOB sorts after all TEXT). */
export type UpperBound = string | Buffer;
export const NO_UPPER_BOUND: UpperBound = Buffer.alloc(0);

type Statement = Database.Statement<unknown[], unknown>;

/** The statements that answer lists return rows as arrays in ROW's column order (`decodeRawRow`). */
const RAW_STATEMENTS: ReadonlySet<StatementName> = new Set(["listLive", "listAt"]);

export function prepareStatements(db: Database.Database): Record<StatementName, Statement> {
  const statements = preparePlain(db);
  // Lists are the store's bulk reads (a watch cache loads every object through them): an array
  // per row costs less than an object with named columns, whose making was most of a row's cost.
  for (const name of RAW_STATEMENTS) statements[name].raw(true);
  return statements;
}

function preparePlain(db: Database.Database): Record<StatementName, Statement> {
  return {
    insertKv: db.prepare("INSERT INTO kv (revision, key, create_revision, value, prev_revision) VALUES (?, ?, ?, ?, ?)"),
    upsertLatest: db.prepare("INSERT INTO latest (key, revision) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET revision = excluded.revision"),
    deleteLatest: db.prepare("DELETE FROM latest WHERE key = ?"),
    /** (key) */
    getLive: db.prepare(`SELECT ${ROW} FROM latest JOIN kv ON kv.revision = latest.revision WHERE latest.key = ?`),
    /** (key, revision) */
    getAt: db.prepare(`SELECT ${ROW} FROM kv WHERE kv.key = ? AND kv.revision <= ? ORDER BY kv.revision DESC LIMIT 1`),
    /** (from, upper, limit) */
    listLive: db.prepare(
      `SELECT ${ROW} FROM latest JOIN kv ON kv.revision = latest.revision WHERE latest.key >= ? AND latest.key < ? ORDER BY latest.key LIMIT ?`,
    ),
    /** (from, upper) */
    countLive: db.prepare("SELECT count(*) AS n FROM latest WHERE key >= ? AND key < ?"),
    /** (from, upper, revision, limit) */
    listAt: db.prepare(
      `SELECT ${ROW} FROM (SELECT max(revision) AS r FROM kv WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key) AS m
       JOIN kv ON kv.revision = m.r WHERE kv.value IS NOT NULL ORDER BY kv.key LIMIT ?`,
    ),
    /** (from, upper, revision) */
    countAt: db.prepare(
      `SELECT count(*) AS n FROM (SELECT max(revision) AS r FROM kv WHERE key >= ? AND key < ? AND revision <= ? GROUP BY key) AS m
       JOIN kv ON kv.revision = m.r WHERE kv.value IS NOT NULL`,
    ),
    /** (after, upTo, from, upper, limit) */
    events: db.prepare(
      `SELECT ${ROW}, p.value AS previous FROM kv LEFT JOIN kv AS p ON p.revision = kv.prev_revision
       WHERE kv.revision > ? AND kv.revision <= ? AND kv.key >= ? AND kv.key < ? ORDER BY kv.revision LIMIT ?`,
    ),
    maxRevision: db.prepare("SELECT coalesce(max(revision), 0) AS n FROM kv"),
    getMeta: db.prepare("SELECT value AS n FROM meta WHERE name = ?"),
    setMeta: db.prepare("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
    /** (after, upTo): drops versions superseded by a write in (after, upTo]. */
    compactSuperseded: db.prepare(
      "DELETE FROM kv WHERE revision IN (SELECT prev_revision FROM kv WHERE revision > ? AND revision <= ? AND prev_revision IS NOT NULL)",
    ),
    /** (after, upTo): drops tombstones in (after, upTo]. Must run after compactSuperseded for the same range. */
    compactTombstones: db.prepare("DELETE FROM kv WHERE revision > ? AND revision <= ? AND value IS NULL"),
  };
}

export type Statements = Record<StatementName, Statement>;

function fields(row: unknown): { readonly [name: string]: unknown } {
  if (typeof row !== "object" || row === null) throw new Error("storage: unexpected SQLite row");
  return row as { readonly [name: string]: unknown };
}

function int(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new Error("storage: expected an integer column");
  return value;
}

function intOrNull(value: unknown): number | null {
  return value === null ? null : int(value);
}

function textOrNull(value: unknown): string | null {
  if (value !== null && typeof value !== "string") throw new Error("storage: expected a text column");
  return value;
}

export function decodeRow(row: unknown): Row {
  const f = fields(row);
  const key = f["key"];
  if (typeof key !== "string") throw new Error("storage: expected a text key");
  return {
    revision: int(f["revision"]),
    key,
    createRevision: int(f["createRevision"]),
    value: textOrNull(f["value"]),
    prevRevision: intOrNull(f["prevRevision"]),
  };
}

/** A row of a raw statement (listLive, listAt): the columns of ROW, in order. */
export function decodeRawRow(row: unknown): Row {
  if (!Array.isArray(row) || row.length !== 5) throw new Error("storage: unexpected SQLite row");
  const key: unknown = row[1];
  if (typeof key !== "string") throw new Error("storage: expected a text key");
  return { revision: int(row[0]), key, createRevision: int(row[2]), value: textOrNull(row[3]), prevRevision: intOrNull(row[4]) };
}

export function decodeEventRow(row: unknown): EventRow {
  return { ...decodeRow(row), previous: textOrNull(fields(row)["previous"]) };
}

/** Decodes `SELECT ... AS n` results; an absent row reads as undefined. */
export function decodeCount(row: unknown): number | undefined {
  return row === undefined ? undefined : int(fields(row)["n"]);
}
