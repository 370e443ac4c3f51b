import { type ApiError, badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import { goJsonType } from "./json-patch.js";
import { asMapType, DEDUCED, fieldTypeOf, type FieldType } from "../../api/schema/field-type.js";

const ORDER_PREFIX = "$setElementOrder/";
const DELETE_PRIMITIVE_PREFIX = "$deleteFromPrimitiveList/";

/**
 * Strategic merge patch, the form kubectl's client-side apply and `kubectl patch` send.
 * Lists merge as the kind's schema says, from the markers kube's schemas carry: a `merge` patch
 * strategy with a patch merge key merges objects by that key, without one merges primitives as
 * a set; other lists are replaced. Directives handled: `$patch` (replace and delete in maps;
 * replace, delete and merge items in lists), `$retainKeys`, `$deleteFromPrimitiveList/<field>`,
 * `$setElementOrder/<field>`.
 *
 * Merged lists are ordered as kube orders them: the patch's items in the patch's (or
 * `$setElementOrder`'s) order, the live list's other items interleaved where the live order
 * places them, and an item neither order can place goes before the live items (so a new item a
 * bare patch adds lands first, as on kube). Malformed directives fail with kube's messages, all
 * 400 BadRequest (kube answers the unclassified ones — an unknown `$patch`, an item without its
 * merge key — 500 without a reason).
 * `target` is not mutated; without a schema no list merges.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, schema: FieldType = DEDUCED): unknown {
  // kube decodes the patch into a map: another JSON value is that decoder's error.
  if (patch !== null && !isPlainObject(patch)) throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
  if (!isPlainObject(patch)) throw badRequest("strategic merge patch must be a JSON object");
  return mergeMap(isPlainObject(target) ? target : {}, patch, schema);
}

/**
 * An error kube's patch library returns unclassified. kube answers it 500 without a reason; this
 * server answers kube's text 400 BadRequest, as hostile input is never a 5xx here (issue #20).
 */
function patchFailure(message: string): ApiError {
  return badRequest(message);
}

/** Go's `%v` of a decoded JSON value: `map[k:v]` with sorted keys, `[a b]`, `<nil>`. */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goValue).join(" ")}]`;
  if (isPlainObject(value)) {
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goValue(value[key])}`)
      .join(" ")}]`;
  }
  return String(value);
}

function badPatchType(directive: unknown, map: Record<string, unknown>): ApiError {
  return patchFailure(`unknown patch type: ${goValue(directive)} in map: ${goValue(map)}`);
}

function noMergeKey(map: Record<string, unknown>, key: string): ApiError {
  return patchFailure(`map: ${goValue(map)} does not contain declared merge key: ${key}`);
}

function childType(type: FieldType, key: string): FieldType {
  const map = asMapType(type);
  return map === undefined ? DEDUCED : fieldTypeOf(map, key);
}

/** `undefined` for `$patch: delete` (the key goes away). */
function mergeMap(original: Record<string, unknown>, patch: Record<string, unknown>, type: FieldType): Record<string, unknown> | undefined {
  if (Object.hasOwn(patch, "$patch")) {
    const directive = patch["$patch"];
    if (directive === "delete") return undefined;
    if (directive === "replace") {
      const { $patch: _patch, ...rest } = patch;
      return stripDirectives(rest) as Record<string, unknown>;
    }
    throw badPatchType(directive, patch);
  }
  const result: Record<string, unknown> = { ...original };
  const retain = patch["$retainKeys"];
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw badRequest("invalid patch format of retainKeys");
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || key === "$retainKeys" || key.startsWith(DELETE_PRIMITIVE_PREFIX) || key.startsWith(ORDER_PREFIX)) continue;
      if (!retain.includes(key)) throw badRequest("invalid patch format of retainKeys");
    }
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  const ordered = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(ORDER_PREFIX)) continue;
    const field = key.slice(ORDER_PREFIX.length);
    if (field === "") throw badRequest("invalid patch format of setElementOrder list");
    ordered.add(field);
    applyElementOrder(result, field, { order, patchList: patch[field], type: childType(type, field) });
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$retainKeys" || key.startsWith(ORDER_PREFIX) || ordered.has(key)) continue;
    if (key.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      const field = key.slice(DELETE_PRIMITIVE_PREFIX.length);
      if (field === "") throw badRequest("invalid patch format of primitive list");
      const current = result[field];
      // kube sets a missing list to the deletion list itself (its merge takes a value it has no original for as is).
      if (current === undefined) result[field] = stripDirectives(value);
      else if (Array.isArray(current) && Array.isArray(value)) result[field] = current.filter((item) => !value.includes(item));
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = result[key];
    if (isPlainObject(value)) {
      const merged = mergeMap(isPlainObject(current) ? current : {}, value, childType(type, key));
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = Array.isArray(current) ? mergeList(childType(type, key), current, value) : stripDirectives(value);
    } else {
      result[key] = value;
    }
  }
  return result;
}

/**
 * A patch value taken as is (nothing live to merge it with), without directives; its nulls
 * dropped, as kube's decoding of the patched object leaves a null field unset.
 */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(isPlainObject(item) && item["$patch"] === "delete")).map(stripDirectives);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!key.startsWith("$") && item !== null) out[key] = stripDirectives(item);
  return out;
}

type ListStrategy = { readonly kind: "key"; readonly key: string } | { readonly kind: "set" } | { readonly kind: "replace" };

/** How a list patch merges: by a key, as a set of primitives, or not at all (replace). */
function listStrategy(type: FieldType): ListStrategy {
  if (type.kind !== "list" || type.patchStrategy?.split(",").includes("merge") !== true) return { kind: "replace" };
  return type.patchMergeKey === undefined ? { kind: "set" } : { kind: "key", key: type.patchMergeKey };
}

function mergeList(type: FieldType, original: readonly unknown[], patch: readonly unknown[]): unknown[] {
  const strategy = listStrategy(type);
  if (strategy.kind === "replace") return stripDirectives(patch) as unknown[];
  if (original.length === 0 && patch.length === 0) return [];
  if (strategy.kind === "set" || !patch.concat(original).some(isPlainObject)) {
    if (strategy.kind === "key" && patch.some((item) => !isPlainObject(item))) return stripDirectives(patch) as unknown[];
    const merged = [...original];
    for (const item of patch) if (!merged.includes(item)) merged.push(item);
    return orderLike(merged, { patchOrder: patch, liveOrder: original, key: undefined });
  }
  const key = strategy.key;
  const itemType = type.kind === "list" ? type.items : DEDUCED;
  // Directives first: deletions leave the live list, a replace makes the patch's items the list.
  let live: unknown[] = [...original];
  const items: Record<string, unknown>[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isPlainObject(item)) return stripDirectives(patch) as unknown[];
    if (!Object.hasOwn(item, "$patch")) {
      items.push(item);
      continue;
    }
    const directive = item["$patch"];
    if (directive === "delete") {
      if (!Object.hasOwn(item, key)) throw noMergeKey(item, key);
      live = live.filter((existing) => !(isPlainObject(existing) && existing[key] === item[key]));
    } else if (directive === "replace") replace = true;
    else if (directive === "merge") throw patchFailure("merging lists cannot yet be specified in the patch");
    else throw badPatchType(directive, item);
  }
  if (replace) return stripDirectives(items) as unknown[];
  const merged = [...live];
  for (const item of items) {
    if (!Object.hasOwn(item, key)) throw noMergeKey(item, key);
    const index = merged.findIndex((existing) => isPlainObject(existing) && existing[key] === item[key]);
    if (index >= 0) {
      const existing = merged[index];
      merged[index] = mergeMap(isPlainObject(existing) ? existing : {}, item, itemType) ?? {};
    } else merged.push(stripDirectives(item));
  }
  return orderLike(merged, { patchOrder: items, liveOrder: live, key });
}

/**
 * `$setElementOrder/<field>`: merges the field's patch list (if any) and orders the result by
 * the directive's list, the live list placing the items the directive does not name.
 */
function applyElementOrder(
  result: Record<string, unknown>,
  field: string,
  { order, patchList, type }: { readonly order: unknown; readonly patchList: unknown; readonly type: FieldType },
): void {
  if (!Array.isArray(order)) throw badRequest("invalid patch format of setElementOrder list");
  if (patchList !== undefined && patchList !== null && !Array.isArray(patchList)) throw badRequest("invalid patch format of setElementOrder list");
  const current = result[field];
  const original = Array.isArray(current) ? current : undefined;
  let merged: unknown[];
  if (Array.isArray(patchList)) merged = original === undefined ? (stripDirectives(patchList) as unknown[]) : mergeList(type, original, patchList);
  else if (original !== undefined) merged = original;
  else return;
  const strategy = listStrategy(type);
  const key = strategy.kind === "key" ? strategy.key : undefined;
  if (key !== undefined && !merged.concat(order).every((item) => isPlainObject(item) && Object.hasOwn(item, key))) {
    const missing = merged.concat(order).find((item) => !(isPlainObject(item) && Object.hasOwn(item, key)));
    throw isPlainObject(missing) ? noMergeKey(missing, key) : badRequest("invalid patch format of setElementOrder list");
  }
  result[field] = orderLike(merged, { patchOrder: order, liveOrder: original ?? [], key });
}

/** The value an item is known by in an order: its merge key's value, or itself for primitives. */
function identity(item: unknown, key: string | undefined): unknown {
  return key === undefined ? item : isPlainObject(item) ? item[key] : undefined;
}

/** Where each identity first appears in an order list. */
function positions(list: readonly unknown[], key: string | undefined): Map<unknown, number> {
  const found = new Map<unknown, number>();
  list.forEach((item, index) => {
    const id = identity(item, key);
    if (!found.has(id)) found.set(id, index);
  });
  return found;
}

/**
 * kube's ordering of a merged list: the items the patch order names, sorted by it; the others
 * (the live list's), sorted by the live order; then the two interleaved, a live item going first
 * only when the live order puts it before the next patch item.
 */
interface Orders {
  /** The order the patch names (its list, or `$setElementOrder`'s). */
  readonly patchOrder: readonly unknown[];
  /** The live list's order. */
  readonly liveOrder: readonly unknown[];
  /** The merge key items are known by; undefined for primitives. */
  readonly key: string | undefined;
}

function orderLike(merged: readonly unknown[], { patchOrder, liveOrder, key }: Orders): unknown[] {
  const inPatch = positions(patchOrder, key);
  const inLive = positions(liveOrder, key);
  const at = (order: Map<unknown, number>, item: unknown): number => order.get(identity(item, key)) ?? -1;
  const named: unknown[] = [];
  const others: unknown[] = [];
  for (const item of merged) (at(inPatch, item) >= 0 ? named : others).push(item);
  named.sort((a, b) => at(inPatch, a) - at(inPatch, b));
  others.sort((a, b) => at(inLive, a) - at(inLive, b));
  const result: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < others.length || j < named.length) {
    if (j >= named.length) result.push(others[i++]);
    else if (i >= others.length) result.push(named[j++]);
    else {
      const left = at(inLive, others[i]);
      const right = at(inLive, named[j]);
      if (left >= 0 && right >= 0 && left < right) result.push(others[i++]);
      else result.push(named[j++]);
    }
  }
  return result;
}
