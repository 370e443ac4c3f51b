/**
 * Helpers shared by the storage backends (not part of the public surface).
 */
import { StorageError } from "./errors.js";
import type { UpdateFunction } from "./interface.js";

/**
 * Orders keys by Unicode code point, which is the same order as comparing their UTF-8
 * bytes (SQLite's BINARY collation). Plain `<` on JS strings compares UTF-16 code units,
 * which disagrees for astral characters vs U+E000..U+FFFF; both backends must agree.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates (astral code points) above U+E000..U+FFFF, keeping the rest in order. */
function codeUnitRank(u: number): number {
  if (u >= 0xe000) return u - 0x800;
  if (u >= 0xd800) return u + 0x2000;
  return u;
}

/**
 * The smallest string that sorts after every key starting with prefix, or undefined when
 * there is none (empty prefix, or a prefix made only of U+10FFFF).
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop() as string;
    const cp = last.codePointAt(0) as number;
    if (cp < 0x10ffff) {
      const next = cp === 0xd7ff ? 0xe000 : cp + 1;
      return points.join("") + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** The smallest key strictly greater than `key` (U+0000 sorts first). */
export function keySuccessor(key: string): string {
  return `${key}\u0000`;
}

/**
 * Validates a read revision and resolves it: 0/undefined = `current`.
 * Throws FutureRevision (revision = current) or Compacted (revision = compacted).
 */
export function resolveReadRevision(key: string, requested: number | undefined, current: number, compacted: number): number {
  const revision = requested ?? 0;
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new TypeError(`invalid revision ${String(requested)} for ${key}`);
  }
  if (revision === 0) return current;
  if (revision > current) {
    throw new StorageError("FutureRevision", key, { revision: current, message: `revision ${revision} is newer than the current revision ${current}` });
  }
  if (revision < compacted) {
    throw new StorageError("Compacted", key, { revision: compacted, message: `revision ${revision} has been compacted (oldest readable: ${compacted})` });
  }
  return revision;
}

export function compactedError(key: string, requested: number, compacted: number): StorageError {
  return new StorageError("Compacted", key, { revision: compacted, message: `revision ${requested} has been compacted (oldest readable: ${compacted})` });
}

export function closedError(key: string): StorageError {
  return new StorageError("Closed", key, { message: "storage is closed" });
}

/** Normalises a tryUpdate result: the new value, or null for a delete request. */
export function updateTarget(result: Awaited<ReturnType<UpdateFunction>>): string | null {
  if (typeof result === "string") return result;
  if (typeof result === "object" && result !== null && result.delete === true) return null;
  throw new TypeError("tryUpdate must return a string or { delete: true }");
}

export function normaliseLimit(limit: number | undefined): number {
  const value = limit ?? 0;
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`invalid list limit ${String(limit)}`);
  return value;
}
