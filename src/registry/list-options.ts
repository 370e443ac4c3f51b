import { badRequest, type FieldError, invalid } from "../api/errors.js";
import type { FieldRequirement, LabelRequirement } from "../api/selector.js";
import {
  parseRevision,
  queryBoolean,
  queryFieldSelector,
  queryInteger,
  queryLabelSelector,
  queryResourceVersion,
  queryResourceVersionMatch,
  type ResourceVersionMatch,
} from "../request/query/index.js";

export { parseRevision };

/** A list/watch request's options, parsed and checked once at the edge. */
export interface ListOptions {
  readonly labelSelector: readonly LabelRequirement[];
  readonly fieldSelector: readonly FieldRequirement[];
  /** undefined = unset; "0" and others as given (validated to be a revision or "0"). */
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: ResourceVersionMatch | undefined;
  /** 0 = no limit (a negative `limit` is no limit too, as in kube). */
  readonly limit: number;
  readonly continueToken: string | undefined;
  /** As given; the watch handler treats 0 as unset and a negative value as already expired. */
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

/**
 * Reads list/watch query parameters. Invalid combinations of resourceVersionMatch follow kube:
 * 422 Invalid naming `resourceVersionMatch`.
 */
export function parseListOptions(query: URLSearchParams, metaGroup: string, verb: "list" | "watch" = "list"): ListOptions {
  const limit = Math.max(0, queryInteger(query, "limit") ?? 0);
  const normalizedVersion = queryResourceVersion(query);
  const sendInitialEvents = queryBoolean(query, "sendInitialEvents");
  const allowWatchBookmarks = queryBoolean(query, "allowWatchBookmarks") ?? false;
  const match = queryResourceVersionMatch(query);
  const resourceVersionMatch = match.value;
  const errors: FieldError[] = match.error === undefined ? [] : [match.error];
  if (resourceVersionMatch !== undefined) {
    // A watch list (sendInitialEvents) may ask NotOlderThan the current state without a version.
    if (normalizedVersion === undefined && sendInitialEvents === undefined) {
      errors.push({
        type: "FieldValueForbidden",
        field: "resourceVersionMatch",
        message: `Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
      });
    } else if (resourceVersionMatch === "Exact" && normalizedVersion === "0") {
      errors.push({
        type: "FieldValueForbidden",
        field: "resourceVersionMatch",
        message: `Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`,
      });
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
  const timeoutSeconds = queryInteger(query, "timeoutSeconds");
  return {
    labelSelector: queryLabelSelector(query),
    fieldSelector: queryFieldSelector(query),
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
