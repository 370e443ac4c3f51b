import type { ApiRequest } from "../request/context.js";

/**
 * The one place that reads a bearer token, as kube's bearer-token authenticator does: the
 * `Authorization` header, trimmed, split at single spaces; a first word `Bearer` (any case)
 * and a non-empty second word make the token (words after it are ignored). Anything else —
 * another scheme, `Bearer` alone, a blank where the token should start — is no bearer token,
 * so such a request is anonymous (when anonymous requests are allowed), not refused.
 */
export function bearerToken(request: ApiRequest): string | undefined {
  const header = request.headers["authorization"];
  if (header === undefined) return undefined;
  // The usual exact form, without splitting a kilobyte of JWT.
  if (header.startsWith("Bearer ") && header.length > 7 && header.indexOf(" ", 7) === -1 && !hasOuterBlank(header)) return header.slice(7);
  const parts = header.trim().split(" ");
  if (parts.length < 2 || parts[0]?.toLowerCase() !== "bearer") return undefined;
  const token = parts[1] ?? "";
  return token === "" ? undefined : token;
}

/** Whether the header ends in a blank `trim()` would remove (then the general path decides). */
function hasOuterBlank(header: string): boolean {
  return header.trimEnd().length !== header.length;
}

/**
 * kube's warning for `Authorization: Bearer  <token>` (two spaces): the token is ignored and
 * the request is anonymous; the client is told why.
 */
export const EXTRA_SPACE_WARNING = "the provided Authorization header contains extra space before the bearer token, and is ignored";

/** Whether the header is `Bearer`, a blank word, then a token: the case kube warns about. */
export function bearerWithExtraSpace(request: ApiRequest): boolean {
  const header = request.headers["authorization"];
  if (header === undefined) return false;
  const parts = header.trim().split(" ");
  return parts.length === 3 && parts[0]?.toLowerCase() === "bearer" && parts[1] === "";
}
