import { invalid, type FieldError } from "../../api/errors.js";
import { queryBoolean } from "./boolean.js";

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

/**
 * `fieldManager` and `force` of a create, update or patch, checked as kube checks
 * Create/Update/PatchOptions (422 naming the options kind): a manager is at most 128 bytes of
 * printable characters; apply requires one; `force` (a kube boolean) is for apply only. Without a
 * `fieldManager` the manager is the User-Agent's product.
 */
export function queryFieldManager(
  query: URLSearchParams,
  userAgent: string | undefined,
  options: { readonly kind: "CreateOptions" | "UpdateOptions" | "PatchOptions"; readonly metaGroup: string; readonly apply?: boolean },
): FieldManagerOptions {
  const given = query.get("fieldManager");
  const force = queryBoolean(query, "force");
  const errors: FieldError[] = [];
  if (options.apply === true) {
    if (given === null || given === "")
      errors.push({ type: "FieldValueRequired", field: "fieldManager", message: "Required value: is required for apply patch" });
  } else if (force !== undefined) {
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
  const fieldManager = given === null || given === "" ? managerFromUserAgent(userAgent) : given;
  return { fieldManager, force: options.apply === true && force === true };
}
