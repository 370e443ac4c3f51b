import { badRequest, ApiError, type FieldError, invalid } from "../api/errors.js";
import { parseFieldSelector, parseLabelSelector, SelectorParseError, type FieldRequirement, type LabelRequirement } from "../api/selector.js";

/** A list/watch request's options, parsed and checked once at the edge. */
export interface ListOptions {
  readonly labelSelector: readonly LabelRequirement[];
  readonly fieldSelector: readonly FieldRequirement[];
  /** undefined = unset; "0" and others as given (validated to be a revision or "0"). */
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: "Exact" | "NotOlderThan" | undefined;
  readonly limit: number;
  readonly continueToken: string | undefined;
  readonly timeoutSeconds: number | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents: boolean | undefined;
}

/** A decoded continue token: the list's snapshot revision and the last key returned. */
export interface ContinueToken {
  readonly revision: number;
  readonly startAfter: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: "c1", rv: token.revision, start: token.startAfter })).toString("base64url");
}

export function decodeContinue(text: string): ContinueToken {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof parsed === "object" && parsed !== null && "v" in parsed && parsed.v === "c1" && "rv" in parsed && "start" in parsed) {
      const { rv, start } = parsed;
      if (typeof rv === "number" && Number.isSafeInteger(rv) && rv > 0 && typeof start === "string") return { revision: rv, startAfter: start };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest("continue key is not valid: incorrect encoded start resourceVersion ");
}

/** Parses a resourceVersion parameter into a revision (0 for "0"); 400 if not a number. */
export function parseRevision(text: string): number {
  if (!/^\d+$/.test(text)) throw badRequest(`invalid resource version "${text}": resourceVersion must be a non-negative integer`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw badRequest(`invalid resource version "${text}"`);
  return value;
}

function parseBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0" || value === "") return false;
  throw badRequest(`invalid boolean value for ${name}: "${value}"`);
}

function parseSelector<T>(parse: (text: string) => T, text: string | null, field: string): T {
  try {
    return parse(text ?? "");
  } catch (error) {
    if (error instanceof SelectorParseError)
      throw new ApiError(400, "BadRequest", `unable to parse requirement: ${error.message}`, {
        details: { causes: [{ reason: "FieldValueInvalid", message: error.message, field }] },
      });
    throw error;
  }
}

/**
 * Reads list/watch query parameters. Invalid combinations of resourceVersionMatch follow kube:
 * 422 Invalid naming `resourceVersionMatch`.
 */
export function parseListOptions(query: URLSearchParams, metaGroup: string, verb: "list" | "watch" = "list"): ListOptions {
  const limitText = query.get("limit");
  let limit = 0;
  if (limitText !== null && limitText !== "") {
    if (!/^-?\d+$/.test(limitText)) throw badRequest(`invalid limit "${limitText}"`);
    limit = Math.max(0, Number(limitText));
  }
  const resourceVersion = query.get("resourceVersion") ?? undefined;
  const normalizedVersion = resourceVersion === "" ? undefined : resourceVersion;
  if (normalizedVersion !== undefined) parseRevision(normalizedVersion);
  const matchText = query.get("resourceVersionMatch");
  const sendInitialEvents = parseBoolean(query, "sendInitialEvents");
  const allowWatchBookmarks = parseBoolean(query, "allowWatchBookmarks") ?? false;
  let resourceVersionMatch: ListOptions["resourceVersionMatch"];
  const errors: FieldError[] = [];
  if (matchText !== null && matchText !== "") {
    if (matchText !== "Exact" && matchText !== "NotOlderThan") {
      errors.push({
        type: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        message: `Unsupported value: "${matchText}": supported values: "Exact", "NotOlderThan", ""`,
      });
    } else {
      resourceVersionMatch = matchText;
      // A watch list (sendInitialEvents) may ask NotOlderThan the current state without a version.
      if (normalizedVersion === undefined && sendInitialEvents === undefined) {
        errors.push({
          type: "FieldValueForbidden",
          field: "resourceVersionMatch",
          message: `Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
        });
      } else if (matchText === "Exact" && normalizedVersion === "0") {
        errors.push({
          type: "FieldValueForbidden",
          field: "resourceVersionMatch",
          message: `Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`,
        });
      }
    }
  }
  const continueToken = query.get("continue") || undefined;
  if (continueToken !== undefined && resourceVersionMatch !== undefined) {
    errors.push({
      type: "FieldValueForbidden",
      field: "resourceVersionMatch",
      message: "Forbidden: resourceVersionMatch is forbidden when continue is provided",
    });
  }
  if (sendInitialEvents !== undefined) {
    if (verb !== "watch")
      errors.push({ type: "FieldValueForbidden", field: "sendInitialEvents", message: "Forbidden: sendInitialEvents is forbidden for list" });
    else if (sendInitialEvents && resourceVersionMatch !== "NotOlderThan")
      errors.push({
        type: "FieldValueForbidden",
        field: "resourceVersionMatch",
        message: "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      });
    else if (sendInitialEvents && !allowWatchBookmarks)
      errors.push({
        type: "FieldValueForbidden",
        field: "allowWatchBookmarks",
        message: "Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is set to true",
      });
  } else if (verb === "watch" && resourceVersionMatch !== undefined) {
    errors.push({
      type: "FieldValueForbidden",
      field: "resourceVersionMatch",
      message: "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    });
  }
  if (errors.length > 0) throw invalid("ListOptions", metaGroup, undefined, errors);
  const timeoutText = query.get("timeoutSeconds");
  let timeoutSeconds: number | undefined;
  if (timeoutText !== null && timeoutText !== "") {
    if (!/^\d+$/.test(timeoutText)) throw badRequest(`invalid timeoutSeconds "${timeoutText}"`);
    timeoutSeconds = Number(timeoutText);
  }
  return {
    labelSelector: parseSelector(parseLabelSelector, query.get("labelSelector"), "labelSelector"),
    fieldSelector: parseSelector(parseFieldSelector, query.get("fieldSelector"), "fieldSelector"),
    resourceVersion: normalizedVersion,
    resourceVersionMatch,
    limit,
    continueToken,
    timeoutSeconds,
    allowWatchBookmarks,
    sendInitialEvents,
  };
}

export type { LabelRequirement, FieldRequirement };
