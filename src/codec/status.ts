import { ApiError, internalError, type StatusDetails } from "../api/errors.js";
import type { ApiResponse } from "../request/context.js";

/** The Status document for an error; the only place that shapes one. */
export function statusBody(error: ApiError): Record<string, unknown> {
  const details = error.details === undefined ? undefined : compactDetails(error.details);
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: error.listMeta ?? {},
    status: "Failure",
    message: error.message,
    reason: error.reason,
    ...(details === undefined ? {} : { details }),
    code: error.code,
  };
}

function compactDetails(details: StatusDetails): StatusDetails | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return Object.keys(out).length === 0 ? undefined : (out as StatusDetails);
}

/** Any thrown value → a Status response. Unknown errors become 500 without leaking internals. */
export function errorResponse(error: unknown): ApiResponse & { readonly body: string } {
  const apiError = error instanceof ApiError ? error : internalError(error instanceof Error ? error.message : String(error), error);
  return {
    status: apiError.code,
    headers: { "content-type": "application/json", ...apiError.headers },
    body: JSON.stringify(statusBody(apiError)),
  };
}

/** A `Status` of success, as delete of an object without finalizers returns. */
export function successStatus(details: StatusDetails): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}
