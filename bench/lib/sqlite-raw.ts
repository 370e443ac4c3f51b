/**
 * The storage limit: raw better-sqlite3 inserts of ~300-byte values into a fresh database in
 * WAL mode with synchronous=FULL (what SqliteStorage uses), one transaction per insert and
 * 16 inserts per transaction. fsync latency on a VM disk varies a lot from second to second,
 * so both modes alternate over several rounds and the medians are reported with the range.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { median, round, summarise } from "./stats.js";

export interface SqliteLimits {
  /** Medians over the rounds. */
  readonly singleInsertsPerSecond: number;
  readonly batched16InsertsPerSecond: number;
  readonly batched16CommitsPerSecond: number;
  /** Per-round rates, to show the spread. */
  readonly singleRounds: readonly number[];
  readonly batched16Rounds: readonly number[];
  /** Commit latency of single-insert transactions, all rounds together. */
  readonly singleCommitP50Ms: number;
  readonly singleCommitP99Ms: number;
  readonly singleCommitMeanMs: number;
}

export function measureSqlite(dir: string, roundMs: number, rounds: number, valueBytes: number): SqliteLimits {
  const db = new Database(join(dir, "raw.db"));
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.exec("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
    const batch = db.transaction((keys: readonly string[]) => {
      for (const key of keys) insert.run(key, value);
    });
    const value = "x".repeat(valueBytes);
    let sequence = 0;
    // Untimed warm-up (page cache, WAL file creation).
    for (let index = 0; index < 200; index++) insert.run(`/warm/${sequence++}`, value);

    const latencies: number[] = [];
    const singleRounds: number[] = [];
    const batchedRounds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let count = 0;
      let started = performance.now();
      let end = started + roundMs;
      while (performance.now() < end) {
        const before = performance.now();
        insert.run(`/single/${sequence++}`, value);
        latencies.push(performance.now() - before);
        count++;
      }
      singleRounds.push(count / ((performance.now() - started) / 1000));

      let commits = 0;
      started = performance.now();
      end = started + roundMs;
      while (performance.now() < end) {
        const keys: string[] = [];
        for (let index = 0; index < 16; index++) keys.push(`/batch/${sequence++}`);
        batch(keys);
        commits++;
      }
      batchedRounds.push((commits * 16) / ((performance.now() - started) / 1000));
    }
    const single = summarise(Float64Array.from(latencies));
    const batched = median(batchedRounds);
    return {
      singleInsertsPerSecond: round(median(singleRounds)),
      batched16InsertsPerSecond: round(batched),
      batched16CommitsPerSecond: round(batched / 16),
      singleRounds: singleRounds.map(round),
      batched16Rounds: batchedRounds.map(round),
      singleCommitP50Ms: round(single.p50Ms),
      singleCommitP99Ms: round(single.p99Ms),
      singleCommitMeanMs: round(single.meanMs),
    };
  } finally {
    db.close();
  }
}
