import { isPlainObject } from "../api/object.js";
import { fieldTypeOf, resolveType, type FieldType, type ListType } from "../api/schema/field-type.js";
import type { FieldSet } from "./field-set.js";
import { fieldElement, type PathElement } from "./path.js";
import { MAX_TRACKED_DEPTH, indexItems, isEmptyMap, itemElement, listValue, mapValue, type WalkOptions } from "./typed.js";

/**
 * Apply's merge of a configuration into a live object, and the removal of a set of fields, on
 * values typed by a FieldType. Inputs are never mutated; results share unchanged subtrees.
 */

/**
 * Apply's merge: `rhs` (the applied configuration) wins for every field it sets; objects merge
 * key by key, set and map lists item by item (items keep the live order, new ones follow the
 * configuration's order around shared items), atomic values are replaced whole.
 */
export function merge(lhs: unknown, rhs: unknown, type: FieldType, options: WalkOptions = {}): unknown {
  return mergeAt(lhs, rhs, type, [], options);
}

function mergeAt(lhs: unknown, rhs: unknown, type: FieldType, path: PathElement[], options: WalkOptions): unknown {
  if (lhs === undefined) return rhs;
  if (rhs === undefined) return lhs;
  // Below the tracked depth a value is atomic (see MAX_TRACKED_DEPTH): the configuration's wins whole.
  if (path.length >= MAX_TRACKED_DEPTH) return rhs;
  const left = resolveType(type, lhs);
  const right = resolveType(type, rhs === null ? lhs : rhs);
  if (left.kind !== right.kind) return rhs;
  switch (right.kind) {
    case "scalar":
      return rhs;
    case "list": {
      const leftItems = listValue(lhs);
      const rightItems = listValue(rhs);
      if (right.listType === "atomic" || (leftItems.length === 0 && rightItems.length === 0)) return rhs;
      return mergeLists(right, leftItems, rightItems, path, options);
    }
    case "map": {
      const leftMap = mapValue(lhs) ?? {};
      const rightMap = mapValue(rhs) ?? {};
      if (right.mapType === "atomic" || (isEmptyMap(leftMap) && isEmptyMap(rightMap))) return rhs;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(leftMap)) {
        if (!(key in rightMap)) {
          out[key] = value;
          continue;
        }
        path.push(fieldElement(key));
        out[key] = mergeAt(value, rightMap[key], fieldTypeOf(right, key), path, options);
        path.pop();
      }
      for (const [key, value] of Object.entries(rightMap)) if (!(key in leftMap)) out[key] = value;
      return out;
    }
  }
}

/** kube's list merge order: the live order, with the configuration's new items placed around the shared ones. */
function mergeLists(list: ListType, lhs: readonly unknown[], rhs: readonly unknown[], path: PathElement[], options: WalkOptions): unknown[] {
  const right = indexItems(list, rhs, path, {});
  // Live items in order, duplicates included (kube tolerates them in stored objects).
  const left = lhs.map((item, index) => ({ element: itemElement(list, item, index, path), item }));
  const leftFirst = new Map<string, unknown>();
  const leftDuplicated = new Set<string>();
  for (const entry of left) {
    if (leftFirst.has(entry.element.key)) leftDuplicated.add(entry.element.key);
    else leftFirst.set(entry.element.key, entry.item);
  }
  // A duplicated live item meets the configuration's item as nothing: the configuration replaces them all.
  const liveItem = (key: string): unknown => (leftDuplicated.has(key) ? undefined : leftFirst.get(key));
  const shared = right.order.filter((element) => leftFirst.has(element.key));
  let sharedIndex = 0;
  const out: unknown[] = [];
  const merged = new Set<string>();
  const mergeItem = (element: PathElement): void => {
    merged.add(element.key);
    path.push(element);
    out.push(mergeAt(liveItem(element.key), right.items.get(element.key), list.items, path, options));
    path.pop();
  };
  let l = 0;
  let r = 0;
  while (l < left.length || r < right.order.length) {
    const leftEntry = left[l];
    const rightElement = right.order[r];
    if (leftEntry !== undefined && rightElement !== undefined) {
      if (leftEntry.element.key === rightElement.key) {
        mergeItem(rightElement);
        l++;
        r++;
        sharedIndex++;
        continue;
      }
      const upcoming = shared[sharedIndex];
      if (right.items.has(leftEntry.element.key) && upcoming !== undefined && upcoming.key !== leftEntry.element.key) {
        // A shared item, but not the one whose turn it is: it comes later, in the configuration's order.
        l++;
        continue;
      }
    }
    if (leftEntry !== undefined) {
      if (!right.items.has(leftEntry.element.key)) {
        out.push(leftEntry.item);
        l++;
        continue;
      }
      if (merged.has(leftEntry.element.key)) {
        l++;
        continue;
      }
    }
    if (rightElement !== undefined) {
      mergeItem(rightElement);
      r++;
      if (shared[sharedIndex]?.key === rightElement.key) sharedIndex++;
    }
  }
  return out;
}

/**
 * The value without the set's members (and everything below them). Objects and lists left empty
 * by the removal are removed too (undefined); atomic values are never entered.
 */
export function removeItems(value: unknown, type: FieldType, set: FieldSet): unknown {
  if (set.isEmpty()) return value;
  const resolved = resolveType(type, value);
  switch (resolved.kind) {
    case "scalar":
      return value;
    case "list": {
      if (resolved.listType === "atomic" || !Array.isArray(value) || value.length === 0) return value;
      const out: unknown[] = [];
      value.forEach((item, index) => {
        let element: PathElement;
        try {
          element = itemElement(resolved, item, index, []);
        } catch {
          out.push(item);
          return;
        }
        if (set.hasMember(element)) return;
        const below = set.withPrefix(element);
        const kept = below.isEmpty() ? item : removeItems(item, resolved.items, below);
        if (kept !== undefined) out.push(kept);
      });
      return out.length === 0 ? undefined : out;
    }
    case "map": {
      if (resolved.mapType === "atomic" || !isPlainObject(value) || Object.keys(value).length === 0) return value;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const element = fieldElement(key);
        if (set.hasMember(element)) continue;
        const below = set.withPrefix(element);
        const kept = below.isEmpty() ? item : removeItems(item, fieldTypeOf(resolved, key), below);
        if (kept !== undefined) out[key] = kept;
      }
      return Object.keys(out).length === 0 ? undefined : out;
    }
  }
}
