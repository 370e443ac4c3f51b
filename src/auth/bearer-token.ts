import type { ApiRequest } from "../request/context.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The one place that reads a bearer token: `Authorization: Bearer <token>` (scheme
 * case-insensitive). Other schemes and an empty token are no bearer token.
 */
export function bearerToken(request: ApiRequest): string | undefined {
  const header = request.headers["authorization"];
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/** Whether the request names the Bearer scheme at all (even with a malformed token): such a request is never anonymous. */
export function claimsBearer(request: ApiRequest): boolean {
  return /^bearer(\s|$)/i.test(request.headers["authorization"] ?? "");
}
