/**
 * The one error family of the API. Every failure a client sees is an ApiError; `codec/status`
 * is the only place that turns one into a response body.
 */
export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "MethodNotAllowed"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "NotAcceptable"
  | "UnsupportedMediaType"
  | "RequestEntityTooLarge"
  | "TooManyRequests"
  | "Timeout"
  | "InternalError"
  | "ServiceUnavailable"
  /** kube's StatusReasonUnknown: an error no reason was given for (the Status has no `reason`). */
  | "";

export interface StatusCause {
  readonly reason?: string;
  readonly message: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** Identifies the resource an error is about, for the Status `details`. */
export interface ErrorTarget {
  readonly group: string;
  /** The resource (plural) name, used as `details.kind` as kube does. */
  readonly resource: string;
  readonly name?: string;
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;
  /** Extra headers to send with the Status (e.g. Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** The Status's ListMeta, e.g. the inconsistent `continue` token of an expired list. */
  readonly listMeta: Readonly<Record<string, string>> | undefined;

  constructor(
    code: number,
    reason: StatusReason,
    message: string,
    options: { details?: StatusDetails; headers?: Record<string, string>; listMeta?: Record<string, string>; cause?: unknown } = {},
  ) {
    // A client's error (4xx) is an answer, not a fault: no stack is captured for it (most of its
    // cost, and nothing reads it). Server errors keep theirs for the log.
    const limit = Error.stackTraceLimit;
    if (code < 500) Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = limit;
    this.name = "ApiError";
    this.code = code;
    this.reason = reason;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.listMeta = options.listMeta;
  }
}

function qualified(target: ErrorTarget): string {
  return target.group === "" ? target.resource : `${target.resource}.${target.group}`;
}

function detailsOf(target: ErrorTarget, causes?: readonly StatusCause[]): StatusDetails {
  return { name: target.name, group: target.group === "" ? undefined : target.group, kind: target.resource, causes };
}

export function notFound(target: ErrorTarget): ApiError {
  return new ApiError(404, "NotFound", `${qualified(target)} "${target.name ?? ""}" not found`, { details: detailsOf(target) });
}

export function alreadyExists(target: ErrorTarget): ApiError {
  return new ApiError(409, "AlreadyExists", `${qualified(target)} "${target.name ?? ""}" already exists`, { details: detailsOf(target) });
}

export function conflict(target: ErrorTarget, why: string): ApiError {
  return new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${qualified(target)} "${target.name ?? ""}": ${why}`, { details: detailsOf(target) });
}

/** A field-level validation failure; `kind` is the object's Kind, as kube reports it. */
export interface FieldError {
  readonly type:
    | "FieldValueRequired"
    | "FieldValueInvalid"
    | "FieldValueTypeInvalid"
    | "FieldValueNotSupported"
    | "FieldValueDuplicate"
    | "FieldValueNotFound"
    | "FieldValueForbidden"
    | "FieldValueTooLong"
    | "FieldValueTooMany";
  readonly field: string;
  readonly message: string;
}

export function invalid(kind: string, group: string, name: string | undefined, errors: readonly FieldError[]): ApiError {
  const summary = errors.map((error) => `${error.field}: ${error.message}`).join(", ");
  const label = group === "" ? kind : `${kind}.${group}`;
  return new ApiError(422, "Invalid", `${label} "${name ?? ""}" is invalid: ${errors.length > 1 ? `[${summary}]` : summary}`, {
    details: {
      name,
      group: group === "" ? undefined : group,
      kind,
      causes: errors.map((error) => ({ reason: error.type, message: error.message, field: error.field })),
    },
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

export function methodNotAllowed(message: string): ApiError {
  return new ApiError(405, "MethodNotAllowed", message);
}

export function forbidden(message: string, target?: ErrorTarget): ApiError {
  return new ApiError(403, "Forbidden", message, { details: target === undefined ? undefined : detailsOf(target) });
}

export function unauthorized(message = "Unauthorized"): ApiError {
  return new ApiError(401, "Unauthorized", message);
}

export function internalError(message: string, cause?: unknown): ApiError {
  return new ApiError(500, "InternalError", `Internal error occurred: ${message}`, { cause, details: { causes: [{ message }] } });
}

export function gone(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

export function timeout(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(504, "Timeout", message, {
    details: { retryAfterSeconds, causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
