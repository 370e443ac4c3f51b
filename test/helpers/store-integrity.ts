import Database from "better-sqlite3";

/** What an offline check of a stopped server's SQLite store found. */
export interface StoreIntegrity {
  /** Every problem found; empty means the store is sound. */
  readonly problems: readonly string[];
  /** The revision counter the server would resume from: max(max(kv.revision), compacted). */
  readonly revision: number;
  /** Live keys checked. */
  readonly liveKeys: number;
}

/**
 * Checks a store file while no server holds it: SQLite's own `PRAGMA integrity_check`, then the
 * project's invariants: the revision counter is at or above every live object's revision, each
 * live key points at a row of that key that is not a tombstone, and every stored value is a whole
 * JSON object (or an encrypted envelope) — never a torn or partial body.
 */
export function checkStoreIntegrity(path: string): StoreIntegrity {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const problems: string[] = [];
    const integrity = db.pragma("integrity_check", { simple: false }) as { integrity_check: string }[];
    const verdicts = integrity.map((row) => row.integrity_check);
    if (verdicts.length !== 1 || verdicts[0] !== "ok") problems.push(`integrity_check: ${verdicts.slice(0, 5).join("; ")}`);
    const max = (db.prepare("SELECT coalesce(max(revision), 0) AS n FROM kv").get() as { n: number }).n;
    const compactedRow = db.prepare("SELECT value AS n FROM meta WHERE name = 'compacted'").get() as { n: number } | undefined;
    const revision = Math.max(max, compactedRow?.n ?? 0);
    const live = db
      .prepare(
        "SELECT latest.key AS key, latest.revision AS revision, kv.key AS rowKey, kv.value AS value FROM latest LEFT JOIN kv ON kv.revision = latest.revision",
      )
      .all() as {
      key: string;
      revision: number;
      rowKey: string | null;
      value: string | null;
    }[];
    for (const row of live) {
      if (row.revision > revision) problems.push(`${row.key} at ${row.revision} is past the revision counter ${revision}`);
      if (row.rowKey !== row.key) problems.push(`${row.key} points at revision ${row.revision}, which holds ${row.rowKey ?? "no row"}`);
      else if (row.value === null) problems.push(`${row.key} points at a tombstone (${row.revision})`);
      else if (!wholeValue(row.value)) problems.push(`${row.key} at ${row.revision} holds a partial body: ${row.value.slice(0, 80)}`);
    }
    return { problems, revision, liveKeys: live.length };
  } finally {
    db.close();
  }
}

function wholeValue(value: string): boolean {
  // An encrypted envelope (`k8s:enc:…` or the profile's spelling) is opaque here.
  if (/^[a-z0-9.-]+:enc:/.test(value)) return true;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
