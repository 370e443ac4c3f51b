import { badRequest, invalid, type FieldError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { listItemOf, type ListItem } from "../registry/index.js";
import type { RequestContext } from "../request/context.js";

/** kube's limit on a field manager's length, in bytes. */
const FIELD_MANAGER_MAX_BYTES = 128;
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export interface FieldManagerOptions {
  /** Who writes: `fieldManager`, else the User-Agent's product (possibly ""). */
  readonly fieldManager: string;
  /** `force` (apply only). */
  readonly force: boolean;
}

/** kube's default manager: the User-Agent up to the first "/", printable characters only, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = "";
  for (const character of (userAgent ?? "").split("/")[0] ?? "") {
    if (!PRINTABLE.test(character)) continue;
    if (Buffer.byteLength(out + character) > FIELD_MANAGER_MAX_BYTES) break;
    out += character;
  }
  return out;
}

/** Go's strconv.ParseBool, which kube's query parameters use. */
function parseBool(value: string, name: string): boolean {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(value)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(value)) return false;
  throw badRequest(`invalid value for ${name}: ${JSON.stringify(value)}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/**
 * `fieldManager` and `force` of a create, update or patch, checked as kube checks
 * Create/Update/PatchOptions (422 naming the options kind): a manager is at most 128 bytes of
 * printable characters; apply requires one; `force` is for apply only.
 */
export function fieldManagerOptions(
  context: RequestContext,
  options: { readonly kind: "CreateOptions" | "UpdateOptions" | "PatchOptions"; readonly metaGroup: string; readonly apply?: boolean },
): FieldManagerOptions {
  const query = context.request.query;
  const given = query.get("fieldManager");
  const forceValue = query.get("force");
  const errors: FieldError[] = [];
  if (options.apply === true) {
    if (given === null || given === "")
      errors.push({ type: "FieldValueRequired", field: "fieldManager", message: "Required value: is required for apply patch" });
  } else if (forceValue !== null) {
    errors.push({ type: "FieldValueForbidden", field: "force", message: "Forbidden: may not be specified for non-apply patch" });
  }
  if (given !== null) {
    if (Buffer.byteLength(given) > FIELD_MANAGER_MAX_BYTES)
      errors.push({ type: "FieldValueTooLong", field: "fieldManager", message: `Too long: may not be more than ${FIELD_MANAGER_MAX_BYTES} bytes` });
    let position = 0;
    for (const character of given) {
      if (!PRINTABLE.test(character)) {
        const code = `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
        errors.push({
          type: "FieldValueInvalid",
          field: "fieldManager",
          message: `Invalid value: ${JSON.stringify(given)}: invalid character ${code} (at position ${position})`,
        });
      }
      position += Buffer.byteLength(character);
    }
  }
  if (errors.length > 0) throw invalid(options.kind, options.metaGroup, undefined, errors);
  const fieldManager = given === null || given === "" ? managerFromUserAgent(context.request.headers["user-agent"]) : given;
  const force = options.apply === true && forceValue !== null ? parseBool(forceValue, "force") : false;
  return { fieldManager, force };
}

/**
 * `omitManagedFields=true` (beyond kube): responses — objects, list items, watch events — leave
 * out `metadata.managedFields`, which often outweighs the rest of an object.
 */
export function omitManagedFields(query: URLSearchParams): boolean {
  const value = query.get("omitManagedFields");
  return value !== null && parseBool(value === "" ? "true" : value, "omitManagedFields");
}

/** The object without `metadata.managedFields` (a shallow copy; the argument is not changed). */
export function withoutManagedFields(object: ApiObject): ApiObject {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

export function listItemWithoutManagedFields(item: ListItem): ListItem {
  return listItemOf(withoutManagedFields(item.decode()));
}
