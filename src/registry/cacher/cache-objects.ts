import sortedBtree from "sorted-btree";
import { bulkLoad } from "sorted-btree/extended/bulkLoad.js";
import { compareKeys } from "../../storage/util.js";
import type { CachedObject } from "./cached-object.js";

const BTree = sortedBtree.default;

/**
 * Cached objects in key order: a B+ tree whose `clone()` is O(1) copy-on-write (the clone and the
 * original share nodes until one of them changes), so a paged list can keep the state of its first
 * page while writes go on, at the cost of the nodes those writes copy.
 */
export type ObjectTree = InstanceType<typeof BTree<string, CachedObject>>;

/** Entries per node: sorted-btree's default, for trees made by insertion and by bulk load alike. */
const NODE_SIZE = 32;

/** One page read from a tree. */
export interface TreePage {
  readonly items: CachedObject[];
  /** The last key looked at (returned or filtered out); undefined when none was. */
  readonly lastKey: string | undefined;
  /** Keys looked at, returned or not. */
  readonly scanned: number;
  /** Whether keys under the prefix follow `lastKey`. */
  readonly more: boolean;
}

/**
 * Objects under `prefix` after `startAfter` (exclusive), passing `matches`, until `limit` of them
 * (0 = all). Costs O(log n + keys looked at): a page of an unfiltered list costs its own size.
 */
export function readPage(
  tree: ObjectTree,
  prefix: string,
  options: { readonly startAfter?: string; readonly limit: number; readonly matches?: (object: CachedObject) => boolean },
): TreePage {
  const items: CachedObject[] = [];
  const { startAfter, limit, matches } = options;
  let lastKey: string | undefined;
  let scanned = 0;
  let more = false;
  const reused: (string | CachedObject)[] = [];
  for (const [key, object] of tree.entries(startAfter ?? prefix, reused)) {
    if (key === startAfter) continue;
    if (!key.startsWith(prefix)) break;
    if (limit > 0 && items.length >= limit) {
      more = true;
      break;
    }
    lastKey = key;
    scanned++;
    if (matches === undefined || matches(object)) items.push(object);
  }
  return { items, lastKey, scanned, more };
}

/** Keys under `prefix` after `startAfter` (exclusive), counted one by one. */
export function countAfter(tree: ObjectTree, prefix: string, startAfter: string): number {
  let count = 0;
  for (const key of tree.keys(startAfter)) {
    if (key === startAfter) continue;
    if (!key.startsWith(prefix)) break;
    count++;
  }
  return count;
}

/**
 * The live objects of one resource: the tree, and how many keys each namespace holds (a paged
 * list reports the keys remaining without counting them).
 */
export class CacheObjects {
  private treeValue: ObjectTree = new BTree<string, CachedObject>(undefined, compareKeys, NODE_SIZE);
  /** Keys per collection prefix one level below the resource's (`/<group>/<plural>/<namespace>/`). */
  private readonly counts = new Map<string, number>();

  constructor(readonly prefix: string) {}

  /** The live tree: read it synchronously, never keep it across a turn (clone it for that). */
  get tree(): ObjectTree {
    return this.treeValue;
  }

  get size(): number {
    return this.treeValue.size;
  }

  get(key: string): CachedObject | undefined {
    return this.treeValue.get(key);
  }

  /** Inserts or replaces; returns the object it replaced. */
  set(key: string, object: CachedObject): CachedObject | undefined {
    const previous = this.treeValue.get(key);
    this.treeValue.set(key, object, true);
    if (previous === undefined) this.count(key, 1);
    return previous;
  }

  /** Removes; returns the object removed. */
  delete(key: string): CachedObject | undefined {
    const previous = this.treeValue.get(key);
    if (previous === undefined) return undefined;
    this.treeValue.delete(key);
    this.count(key, -1);
    return previous;
  }

  /**
   * Replaces everything (start-up, a re-list). The tree is built bottom-up from the sorted objects
   * (O(n), full leaves) rather than by n inserts: stores list in key order, so the sort finds one run.
   */
  reset(objects: readonly CachedObject[]): void {
    const sorted = [...objects].sort((a, b) => compareKeys(a.key, b.key));
    this.treeValue = bulkLoad(
      sorted.map((object) => object.key),
      sorted,
      NODE_SIZE,
      compareKeys,
    );
    this.counts.clear();
    for (const object of sorted) this.count(object.key, 1);
  }

  /** An O(1) copy-on-write snapshot of the current state. */
  snapshot(): ObjectTree {
    return this.treeValue.clone();
  }

  /** Keys under `prefix`: O(1) for the resource's prefix and a namespace's, counted otherwise. */
  countUnder(prefix: string): number {
    if (prefix === this.prefix) return this.treeValue.size;
    const known = this.counts.get(prefix);
    if (known !== undefined || this.parentOf(prefix) === prefix) return known ?? 0;
    return countAfter(this.treeValue, prefix, prefix);
  }

  /** The namespace-level prefix a key (or a prefix) falls under; itself when it is one. */
  private parentOf(key: string): string | undefined {
    const slash = key.indexOf("/", this.prefix.length);
    return slash < 0 ? undefined : key.slice(0, slash + 1);
  }

  private count(key: string, delta: number): void {
    const parent = this.parentOf(key);
    if (parent === undefined) return;
    const next = (this.counts.get(parent) ?? 0) + delta;
    if (next === 0) this.counts.delete(parent);
    else this.counts.set(parent, next);
  }
}
