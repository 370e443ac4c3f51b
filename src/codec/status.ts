import { ApiError, internalError, type StatusDetails } from "../api/errors.js";
import type { ApiResponse } from "../request/context.js";
import { parseAccept } from "./media-type.js";
import type { ProtobufWire } from "./negotiate.js";

/** The protobuf media type a client prefers to JSON, if it does (its first acceptable entry). */
function preferredProtobuf(accept: string | undefined, mediaTypes: readonly string[]): string | undefined {
  for (const entry of parseAccept(accept)) {
    if (entry.params["as"] !== undefined) continue;
    if (mediaTypes.includes(entry.type)) return entry.type;
    return undefined;
  }
  return undefined;
}

/** The Status document for an error; the only place that shapes one. */
export function statusBody(error: ApiError): Record<string, unknown> {
  const details = error.details === undefined ? undefined : compactDetails(error.details);
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: error.listMeta ?? {},
    status: "Failure",
    message: error.message,
    ...(error.reason === "" ? {} : { reason: error.reason }),
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

/**
 * Any thrown value → a Status response. Unknown errors become 500 without leaking internals.
 * With `protobuf`, a client whose most preferred acceptable type is protobuf gets the Status in it.
 */
export function errorResponse(error: unknown): ApiResponse & { readonly body: string };
export function errorResponse(error: unknown, protobuf: { readonly accept: string | undefined; readonly wire: ProtobufWire }): ApiResponse;
export function errorResponse(error: unknown, protobuf?: { readonly accept: string | undefined; readonly wire: ProtobufWire }): ApiResponse {
  const apiError = error instanceof ApiError ? error : internalError(error instanceof Error ? error.message : String(error), error);
  const mediaType = protobuf === undefined ? undefined : preferredProtobuf(protobuf.accept, protobuf.wire.mediaTypes);
  if (protobuf !== undefined && mediaType !== undefined) {
    return {
      status: apiError.code,
      headers: { "content-type": mediaType, ...apiError.headers },
      body: Buffer.from(protobuf.wire.codec.encode(statusBody(apiError))),
    };
  }
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
