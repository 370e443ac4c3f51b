import { badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import { asMapType, DEDUCED, fieldTypeOf, type FieldType } from "../../api/schema/field-type.js";

const ORDER_PREFIX = "$setElementOrder/";
const DELETE_PRIMITIVE_PREFIX = "$deleteFromPrimitiveList/";

/**
 * Strategic merge patch, the form kubectl's client-side apply and `kubectl patch` send.
 * Lists merge as the kind's schema says, from the markers kube's schemas carry: a `merge` patch
 * strategy with a patch merge key merges objects by that key, without one merges primitives as
 * a set; other lists are replaced. Directives handled: `$patch` (replace, delete, merge),
 * `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
 * `target` is not mutated; without a schema no list merges.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, schema: FieldType = DEDUCED): unknown {
  if (!isPlainObject(patch)) throw badRequest("strategic merge patch must be a JSON object");
  return mergeMap(isPlainObject(target) ? target : {}, patch, schema);
}

function childType(type: FieldType, key: string): FieldType {
  const map = asMapType(type);
  return map === undefined ? DEDUCED : fieldTypeOf(map, key);
}

function mergeMap(original: Record<string, unknown>, patch: Record<string, unknown>, type: FieldType): Record<string, unknown> | undefined {
  const directive = patch["$patch"];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const { $patch: _patch, ...rest } = patch;
    return stripDirectives(rest) as Record<string, unknown>;
  }
  const result: Record<string, unknown> = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys" || key.startsWith(ORDER_PREFIX)) continue;
    if (key.startsWith(DELETE_PRIMITIVE_PREFIX)) {
      const field = key.slice(DELETE_PRIMITIVE_PREFIX.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) result[field] = current.filter((item) => !value.includes(item));
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
      result[key] = mergeList(childType(type, key), Array.isArray(current) ? current : [], value);
    } else {
      result[key] = value;
    }
  }
  const retain = patch["$retainKeys"];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!key.startsWith("$")) out[key] = stripDirectives(item);
  return out;
}

/** How a list patch merges: by a key, as a set of primitives, or not at all (replace). */
function listStrategy(type: FieldType): { readonly kind: "key"; readonly key: string } | { readonly kind: "set" } | { readonly kind: "replace" } {
  if (type.kind !== "list" || type.patchStrategy?.split(",").includes("merge") !== true) return { kind: "replace" };
  return type.patchMergeKey === undefined ? { kind: "set" } : { kind: "key", key: type.patchMergeKey };
}

function mergeList(type: FieldType, original: readonly unknown[], patch: readonly unknown[]): unknown[] {
  if (patch.some((item) => isPlainObject(item) && item["$patch"] === "replace" && Object.keys(item).length === 1)) {
    return stripDirectives(patch.filter((item) => !(isPlainObject(item) && item["$patch"] === "replace"))) as unknown[];
  }
  const strategy = listStrategy(type);
  if (strategy.kind === "set" && patch.every((item) => typeof item !== "object")) {
    const result = [...original];
    for (const item of patch) if (!result.includes(item)) result.push(item);
    return result;
  }
  if (strategy.kind !== "key") return stripDirectives(patch) as unknown[];
  const key = strategy.key;
  const itemType = type.kind === "list" ? type.items : DEDUCED;
  const result: unknown[] = original.map((item) => item);
  for (const item of patch) {
    if (!isPlainObject(item)) continue;
    const index = result.findIndex((existing) => isPlainObject(existing) && existing[key] === item[key]);
    if (item["$patch"] === "delete") {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) {
      const existing = result[index];
      result[index] = mergeMap(isPlainObject(existing) ? existing : {}, item, itemType);
    } else {
      result.push(stripDirectives(item));
    }
  }
  return result;
}
