import { isPlainObject, type JsonValue } from "../api/object.js";
import { asMapType, fieldTypeOf, isNamedField, resolveType, type FieldType, type ListType, type MapType } from "../api/schema/field-type.js";
import { type Child, FieldSet, FieldSetBuilder } from "./field-set.js";
import { fieldElement, keyElement, pathString, valueElement, type Path, type PathElement } from "./path.js";
import { DEPTH_BUDGET, DepthBudgetExceeded, equalJson } from "../util/deep-json.js";

/**
 * Structured merge's reading of values typed by a FieldType: list item identities, the field
 * set a value sets, and the difference between two values (apply's merge and removal are in
 * `merge.ts`). Values are plain JSON and are never mutated.
 */

/** A value does not fit its schema (a list-map item without its key, a duplicate key). */
export class SchemaError extends Error {
  constructor(path: Path, message: string) {
    super(`${pathString(path)}: ${message}`);
    this.name = "SchemaError";
  }
}

export interface WalkOptions {
  /**
   * Allow several list-map or set items with the same key (live objects may have them: kube
   * tolerates duplicates in what is stored, never in an applied configuration).
   */
  readonly allowDuplicates?: boolean;
  /**
   * Both values carry their Go zeros (`withGoZeros`), as kube's typed objects do: a null
   * `creationTimestamp` is then compared like any field (it is null on both sides wherever the
   * struct existed before, and new under a pointer struct that appears).
   */
  readonly typed?: boolean;
}

/** Elements of list items already seen, with the key values they were made from (items are shared between walks). */
const ITEM_ELEMENTS = new WeakMap<object, { readonly list: ListType; readonly keys: readonly unknown[]; readonly element: PathElement }>();

/** A list item's path element; throws SchemaError for items its list type cannot identify. */
export function itemElement(list: ListType, item: unknown, index: number, path: Path): PathElement {
  if (!isPlainObject(item) || list.listType !== "map") return computeItemElement(list, item, index, path);
  const keys = list.keys.map((name) => item[name]);
  const known = ITEM_ELEMENTS.get(item);
  // Reused only while the item holds the same key values (objects may be edited in place).
  if (known !== undefined && known.list === list && known.keys.every((value, position) => value === keys[position])) return known.element;
  const element = computeItemElement(list, item, index, path);
  ITEM_ELEMENTS.set(item, { list, keys, element });
  return element;
}

function computeItemElement(list: ListType, item: unknown, index: number, path: Path): PathElement {
  if (list.listType === "set") {
    if (typeof item === "object" && item !== null)
      throw new SchemaError(path, `element ${index}: associative list without keys has an element that's a ${Array.isArray(item) ? "list" : "map"} type`);
    return valueElement(item as JsonValue);
  }
  if (item === null) throw new SchemaError(path, `element ${index}: associative list with keys may not have a null element`);
  if (!isPlainObject(item)) throw new SchemaError(path, `element ${index}: associative list with keys may not have non-map elements`);
  const itemType = asMapType(resolveType(list.items, item));
  const fields = list.keys.map((name) => {
    const value = item[name];
    if (value !== undefined) return { name, value: value as JsonValue };
    const fallback = itemType?.defaults.get(name);
    if (fallback !== undefined) return { name, value: fallback };
    throw new SchemaError(
      path,
      `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
    );
  });
  return keyElement(fields);
}

interface IndexedItems {
  readonly order: PathElement[];
  readonly items: Map<string, unknown>;
  /** Elements that occur more than once (only with allowDuplicates). */
  readonly duplicated: Set<string>;
}

export function indexItems(list: ListType, items: readonly unknown[], path: Path, options: WalkOptions): IndexedItems {
  const order: PathElement[] = [];
  const byKey = new Map<string, unknown>();
  const duplicated = new Set<string>();
  items.forEach((item, index) => {
    const element = itemElement(list, item, index, path);
    if (byKey.has(element.key)) {
      if (options.allowDuplicates !== true) {
        const shown = pathString([element]);
        throw new SchemaError(path, `duplicate entries for key ${shown}`);
      }
      duplicated.add(element.key);
      return;
    }
    byKey.set(element.key, item);
    order.push(element);
  });
  return { order, items: byKey, duplicated };
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

// ---------------------------------------------------------------- field sets

/**
 * How many levels down field ownership is tracked. Bodies may nest 10,000 levels (kube's decoder
 * limit) and these walks recurse once per level, which Node's default stack cannot hold that far,
 * and field sets are built path by path, quadratic in depth: a value below this depth is owned,
 * compared and merged as one atomic value (kube tracks every level of a granular object). Real
 * objects nest a few dozen levels.
 */
export const MAX_TRACKED_DEPTH = 500;

/**
 * The fields a value sets: every scalar and atomic value, every list item, every map entry, and
 * struct fields whose value is null or `{}`. This is what an applier owns after applying it.
 */
export function toFieldSet(value: unknown, type: FieldType, options: WalkOptions = {}): FieldSet {
  const builder = new FieldSetBuilder();
  collect(value, type, [], builder, options);
  return builder.build();
}

function collect(value: unknown, type: FieldType, path: PathElement[], out: FieldSetBuilder, options: WalkOptions): void {
  if (path.length >= MAX_TRACKED_DEPTH) {
    out.insert(path);
    return;
  }
  const resolved = resolveType(type, value);
  switch (resolved.kind) {
    case "scalar":
      if (path.length > 0) out.insert(path);
      return;
    case "list": {
      if (resolved.listType === "atomic") {
        out.insert(path);
        return;
      }
      if (!Array.isArray(value)) return;
      const indexed = indexItems(resolved, value, path, options);
      for (const element of indexed.order) {
        path.push(element);
        out.insert(path);
        if (!indexed.duplicated.has(element.key)) collect(indexed.items.get(element.key), resolved.items, path, out, options);
        path.pop();
      }
      return;
    }
    case "map": {
      if (resolved.mapType === "atomic") {
        out.insert(path);
        return;
      }
      if (!isPlainObject(value)) return;
      for (const [key, item] of Object.entries(value)) {
        path.push(fieldElement(key));
        collect(item, fieldTypeOf(resolved, key), path, out, options);
        if (item === null || isEmptyObject(item) || !isNamedField(resolved, key)) out.insert(path);
        path.pop();
      }
      return;
    }
  }
}

// ---------------------------------------------------------------- Go zeros

/**
 * The value as kube's typed object of it holds it: below every built-in struct present, the
 * fields its Go zero always has (`MapType.goZeros`: non-pointer structs as `{}`, nil
 * non-`omitempty` collections as null) are added where absent (a null struct reads as its zero,
 * as Go decodes it). Shares what it does not change; never mutates `value`. An Update compares
 * two such values, so a struct that always exists is never added or removed itself.
 */
export function withGoZeros(value: unknown, type: FieldType): unknown {
  return fillZeros(value, type, 0);
}

function fillZeros(value: unknown, type: FieldType, depth: number): unknown {
  // Scalars and untyped values hold no Go zeros.
  if (typeof value !== "object" || value === null || type.kind === "scalar" || type.kind === "untyped" || depth >= MAX_TRACKED_DEPTH) return value;
  const resolved = resolveType(type, value);
  if (resolved.kind === "list") {
    if (resolved.listType === "atomic" || !Array.isArray(value)) return value;
    let out: unknown[] | undefined;
    value.forEach((item, index) => {
      const filled = fillZeros(item, resolved.items, depth + 1);
      if (filled === item) return;
      out ??= [...value];
      out[index] = filled;
    });
    return out ?? value;
  }
  if (resolved.kind !== "map" || resolved.mapType === "atomic" || !isPlainObject(value)) return value;
  // A map of scalars (labels, annotations, data) has nothing below.
  if (resolved.goZeros === undefined && resolved.fields.size === 0 && resolved.elements.kind === "scalar") return value;
  let out: Record<string, unknown> | undefined;
  for (const zero of resolved.goZeros ?? []) {
    const filled = withZeroAt(out ?? value, zero.path, 0, zero.value);
    if (filled !== (out ?? value)) out = filled;
  }
  const source = out ?? value;
  for (const [key, item] of Object.entries(source)) {
    const filled = fillZeros(item, fieldTypeOf(resolved, key), depth + 1);
    if (filled === item) continue;
    out ??= { ...value };
    out[key] = filled;
  }
  return out ?? value;
}

/** `object` with `zero` at `path` (below `index`) where absent or null; parents must exist. A copy when it changes. */
function withZeroAt(object: Record<string, unknown>, path: readonly string[], index: number, zero: JsonValue): Record<string, unknown> {
  const name = path[index];
  if (name === undefined) return object;
  const present = object[name];
  if (index === path.length - 1) {
    if (present !== undefined && !(present === null && zero !== null)) return object;
    return { ...object, [name]: isPlainObject(zero) ? { ...zero } : zero };
  }
  if (!isPlainObject(present)) return object;
  const inner = withZeroAt(present, path, index + 1, zero);
  return inner === present ? object : { ...object, [name]: inner };
}

// ---------------------------------------------------------------- compare

/**
 * A zero `creationTimestamp` (null: an embedded ObjectMeta's, which kube always writes in pod
 * templates) is in kube's empty typed object too, so kube's comparison never reports it: no
 * manager owns it.
 */
function untracked(key: string, value: unknown): boolean {
  return value === null && key === "creationTimestamp";
}

/** How `rhs` differs from `lhs`, as three disjoint field sets. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * Compares two values field by field. Leaves (scalars, atomic values, empty objects and lists)
 * are added, removed or modified; an object or list that appears or disappears is also added or
 * removed itself, as kube's comparison reports it.
 */
export function compare(lhs: unknown, rhs: unknown, type: FieldType, options: WalkOptions = { allowDuplicates: true }): Comparison {
  // Against nothing (a create: no value, or an empty object against an object) everything is added: built directly.
  if (lhs === undefined || (isEmptyObject(lhs) && isPlainObject(rhs)))
    return { added: addedBelow(rhs, type, [], options), modified: FieldSet.EMPTY, removed: FieldSet.EMPTY };
  const added = new FieldSetBuilder();
  const modified = new FieldSetBuilder();
  const removed = new FieldSetBuilder();
  const sink = { added, modified, removed };
  compareAt(lhs, rhs, type, [], sink, options);
  return { added: added.build(), modified: modified.build(), removed: removed.build() };
}

interface CompareSink {
  readonly added: FieldSetBuilder;
  readonly modified: FieldSetBuilder;
  readonly removed: FieldSetBuilder;
}

function leaf(lhs: unknown, rhs: unknown, path: PathElement[], sink: CompareSink): void {
  if (path.length === 0) return;
  if (lhs === undefined) sink.added.insert(path);
  else if (rhs === undefined) sink.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) sink.modified.insert(path);
}

function compareAt(lhs: unknown, rhs: unknown, type: FieldType, path: PathElement[], sink: CompareSink, options: WalkOptions): void {
  if (path.length >= MAX_TRACKED_DEPTH) {
    leaf(lhs, rhs, path, sink);
    return;
  }
  const left = lhs === undefined ? undefined : resolveType(type, lhs);
  const right = rhs === undefined ? undefined : resolveType(type, rhs);
  const resolved = right ?? left;
  if (resolved === undefined) return;
  // Different shapes (an object replaced by a list, say) compare as one value.
  if (left !== undefined && right !== undefined && left.kind !== right.kind) {
    leaf(lhs, rhs, path, sink);
    return;
  }
  let inLeaf = false;
  switch (resolved.kind) {
    case "scalar":
      leaf(lhs, rhs, path, sink);
      inLeaf = true;
      break;
    case "list": {
      const leftItems = listValue(lhs);
      const rightItems = listValue(rhs);
      if (resolved.listType === "atomic" || (leftItems.length === 0 && rightItems.length === 0)) {
        leaf(lhs, rhs, path, sink);
        inLeaf = true;
        break;
      }
      compareLists(resolved, leftItems, rightItems, path, sink, options);
      break;
    }
    case "map": {
      const leftMap = mapValue(lhs);
      const rightMap = mapValue(rhs);
      if (resolved.mapType === "atomic" || (isEmptyMap(leftMap) && isEmptyMap(rightMap))) {
        leaf(lhs, rhs, path, sink);
        inLeaf = true;
        break;
      }
      for (const key of unionKeys(leftMap, rightMap)) {
        const leftItem = options.typed !== true && untracked(key, leftMap?.[key]) ? undefined : leftMap?.[key];
        const rightItem = options.typed !== true && untracked(key, rightMap?.[key]) ? undefined : rightMap?.[key];
        if (leftItem === undefined && rightItem === undefined) continue;
        path.push(fieldElement(key));
        compareAt(leftItem, rightItem, fieldTypeOf(resolved, key), path, sink, options);
        path.pop();
      }
      break;
    }
  }
  if (!inLeaf && path.length > 0) {
    if (lhs === undefined) sink.added.insert(path);
    else if (rhs === undefined) sink.removed.insert(path);
  }
}

/**
 * What `compare` reports as added below a value that is new (nothing on the left): every item
 * and entry under it, each a member, as one FieldSet built bottom-up (no path inserts from the
 * root). The same walk as compareAt's with `lhs` undefined.
 */
function addedBelow(value: unknown, type: FieldType, path: PathElement[], options: WalkOptions): FieldSet {
  // As compareAt: a value at the tracked depth is one atomic member, nothing below it.
  if (path.length >= MAX_TRACKED_DEPTH) return FieldSet.EMPTY;
  const resolved = resolveType(type, value);
  if (resolved.kind === "scalar") return FieldSet.EMPTY;
  const members = new Map<string, PathElement>();
  const children = new Map<string, Child>();
  if (resolved.kind === "list") {
    const items = listValue(value);
    if (resolved.listType === "atomic" || items.length === 0) return FieldSet.EMPTY;
    const indexed = indexItems(resolved, items, path, options);
    for (const element of indexed.order) {
      members.set(element.key, element);
      // Duplicated items count as whole values.
      if (indexed.duplicated.has(element.key)) continue;
      path.push(element);
      const below = addedBelow(indexed.items.get(element.key), resolved.items, path, options);
      path.pop();
      if (!below.isEmpty()) children.set(element.key, { element, set: below });
    }
    return new FieldSet(members, children);
  }
  const map = mapValue(value);
  if (resolved.mapType === "atomic" || map === undefined) return FieldSet.EMPTY;
  for (const key of Object.keys(map)) {
    const item = map[key];
    if (item === undefined || (options.typed !== true && untracked(key, item))) continue;
    const element = fieldElement(key);
    members.set(element.key, element);
    path.push(element);
    const below = addedBelow(item, fieldTypeOf(resolved, key), path, options);
    path.pop();
    if (!below.isEmpty()) children.set(element.key, { element, set: below });
  }
  return new FieldSet(members, children);
}

function compareLists(list: ListType, lhs: readonly unknown[], rhs: readonly unknown[], path: PathElement[], sink: CompareSink, options: WalkOptions): void {
  const left = indexItems(list, lhs, path, options);
  const right = indexItems(list, rhs, path, options);
  const visit = (element: PathElement): void => {
    path.push(element);
    if (left.duplicated.has(element.key) || right.duplicated.has(element.key)) {
      // Duplicated items are compared as whole values.
      const before = lhs.filter((item, index) => itemElement(list, item, index, path).key === element.key);
      const after = rhs.filter((item, index) => itemElement(list, item, index, path).key === element.key);
      leaf(before.length === 0 ? undefined : before, after.length === 0 ? undefined : after, path, sink);
    } else {
      compareAt(left.items.get(element.key), right.items.get(element.key), list.items, path, sink, options);
    }
    path.pop();
  };
  for (const element of right.order) visit(element);
  for (const element of left.order) if (!right.items.has(element.key)) visit(element);
}

/**
 * The set with every struct field that has members below it made a member itself, so that
 * removal can take a struct field away as a whole (kube's `EnsureNamedFieldsAreMembers`).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: FieldType): FieldSet {
  return set.withMembersWhere<FieldType>(
    type,
    (context, element) => {
      const map = element.kind === "field" ? mapOf(context) : undefined;
      return map !== undefined && element.kind === "field" && isNamedField(map, element.name);
    },
    (context, element) => typeBelow(context, element),
  );
}

function mapOf(type: FieldType): MapType | undefined {
  return type.kind === "list" || type.kind === "scalar" ? undefined : asMapType(type);
}

/** The type of what an element names inside a value of `type`, without looking at values. */
export function typeBelow(type: FieldType, element: PathElement): FieldType {
  if (type.kind === "list") return type.items;
  if (type.kind === "untyped") return type;
  if (type.kind === "map" && element.kind === "field") return fieldTypeOf(type, element.name);
  return type;
}

// ---------------------------------------------------------------- helpers

export function listValue(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function mapValue(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function isEmptyMap(value: Record<string, unknown> | undefined): boolean {
  return value === undefined || Object.keys(value).length === 0;
}

function unionKeys(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): string[] {
  const keys = a === undefined ? [] : Object.keys(a);
  if (b !== undefined) for (const key of Object.keys(b)) if (a === undefined || !(key in a)) keys.push(key);
  return keys;
}

/** Deep equality of JSON values (object key order ignored), for values of every depth. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  try {
    return jsonEqualRecursive(a, b, 0);
  } catch (error) {
    if (!(error instanceof DepthBudgetExceeded)) throw error;
    return equalJson(a, b);
  }
}

function jsonEqualRecursive(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth > DEPTH_BUDGET) throw new DepthBudgetExceeded();
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!jsonEqualRecursive(a[index], b[index], depth + 1)) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!(key in right) || !jsonEqualRecursive(left[key], right[key], depth + 1)) return false;
  }
  return true;
}
