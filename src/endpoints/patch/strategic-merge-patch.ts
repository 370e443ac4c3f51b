import { badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";

/**
 * Strategic merge patch, the form kubectl's client-side apply and `kubectl patch` send.
 * Lists of objects merge by their merge key where the field is known to have one; other lists
 * replace; `metadata.finalizers` merges as a set. Directives handled: `$patch` (replace, delete,
 * merge), `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
 * TODO(#4): read merge keys from each kind's schema instead of this table of field names.
 */
const MERGE_KEYS: Readonly<Record<string, readonly string[]>> = {
  containers: ["name"],
  initContainers: ["name"],
  ephemeralContainers: ["name"],
  env: ["name"],
  volumes: ["name"],
  volumeMounts: ["mountPath"],
  volumeDevices: ["devicePath"],
  imagePullSecrets: ["name"],
  secrets: ["name"],
  conditions: ["type"],
  ownerReferences: ["uid"],
  hostAliases: ["ip"],
  topologySpreadConstraints: ["topologyKey", "whenUnsatisfiable"],
  ports: ["containerPort", "port"],
  addresses: ["ip"],
  resourceClaims: ["name"],
};

/** Primitive lists merged as sets. */
const SET_FIELDS = new Set(["finalizers"]);

const ORDER_PREFIX = "$setElementOrder/";
const DELETE_PRIMITIVE_PREFIX = "$deleteFromPrimitiveList/";

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) throw badRequest("strategic merge patch must be a JSON object");
  return mergeMap(isPlainObject(target) ? target : {}, patch);
}

function mergeMap(original: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> | undefined {
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
      const merged = mergeMap(isPlainObject(current) ? current : {}, value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(key, Array.isArray(current) ? current : [], value);
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

function mergeKeyFor(field: string, items: readonly unknown[]): string | undefined {
  const candidates = MERGE_KEYS[field];
  if (candidates === undefined) return undefined;
  for (const candidate of candidates) {
    if (items.some((item) => isPlainObject(item) && item[candidate] !== undefined)) return candidate;
  }
  return undefined;
}

function mergeList(field: string, original: readonly unknown[], patch: readonly unknown[]): unknown[] {
  if (patch.some((item) => isPlainObject(item) && item["$patch"] === "replace" && Object.keys(item).length === 1)) {
    return stripDirectives(patch.filter((item) => !(isPlainObject(item) && item["$patch"] === "replace"))) as unknown[];
  }
  if (SET_FIELDS.has(field) && patch.every((item) => typeof item !== "object")) {
    const result = [...original];
    for (const item of patch) if (!result.includes(item)) result.push(item);
    return result;
  }
  const key = mergeKeyFor(field, [...original, ...patch]);
  if (key === undefined) return stripDirectives(patch) as unknown[];
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
      result[index] = mergeMap(isPlainObject(existing) ? existing : {}, item);
    } else {
      result.push(stripDirectives(item));
    }
  }
  return result;
}
