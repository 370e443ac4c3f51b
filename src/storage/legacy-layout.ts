/**
 * Upgrades a store written before kube's key layout (storage/key-layout.ts): built-in resources
 * were kept under `/<group or "core">/<plural>/…`. On start, every such key is moved to its
 * kube-layout key through the Storage seam (so an encrypting store decrypts under the old key and
 * encrypts under the new one), then removed. The move is idempotent: a crash between the create and
 * the delete leaves the new key present, and the next start only deletes the old one.
 * Moved objects get new resourceVersions (a one-time re-list for clients).
 */
import { isStorageError } from "./errors.js";
import type { Storage } from "./interface.js";
import { resourcePrefix } from "./key-layout.js";

/** A built-in stored resource: the storage version's group ("" for core) and plural. */
export interface BuiltinResource {
  readonly group: string;
  readonly plural: string;
}

/** The old prefix and its kube-layout replacement, for every built-in resource whose keys moved. */
export function legacyMoves(builtins: readonly BuiltinResource[]): { readonly from: string; readonly to: string }[] {
  const moves: { from: string; to: string }[] = [];
  for (const { group, plural } of builtins) {
    const from = `/${group === "" ? "core" : group}/${plural}/`;
    const to = `/${resourcePrefix({ group, plural, custom: false })}/`;
    if (from !== to) moves.push({ from, to });
  }
  return moves;
}

/** Moves every legacy key; returns how many objects moved (0 on a store already in kube's layout). */
export async function upgradeLegacyKeys(storage: Storage, builtins: readonly BuiltinResource[]): Promise<number> {
  let moved = 0;
  for (const { from, to } of legacyMoves(builtins)) {
    if ((await storage.count(from)) === 0) continue;
    const { items } = await storage.list(from);
    for (const item of items) {
      const target = `${to}${item.key.slice(from.length)}`;
      try {
        await storage.create(target, item.value);
      } catch (error) {
        // Already moved by an interrupted earlier start: keep the moved copy.
        if (!isStorageError(error, "KeyExists")) throw error;
      }
      try {
        await storage.delete(item.key, { expectedRevision: item.modRevision });
        moved++;
      } catch (error) {
        // Another server starting on the same store moved it first.
        if (!isStorageError(error, "KeyNotFound") && !isStorageError(error, "PreconditionFailed")) throw error;
      }
    }
  }
  return moved;
}
