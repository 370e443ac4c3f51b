import type { ApiRequest } from "../request/context.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The one place that reads a bearer token: `Authorization: Bearer <token>` (scheme
 * case-insensitive). Other schemes and an empty token are no bearer token.
 */
export function bearerToken(request: ApiRequest): string | undefined {
  const header = request.headers["authorization"];
  if (header === undefined) return undefined;
  // The usual exact form, without running the regex over a kilobyte of JWT.
  if (header.startsWith("Bearer ") && header.length > 7 && !hasBlank(header, 7)) return header.slice(7);
  return BEARER.exec(header)?.[1];
}

/** Whether `text` has, from `from` on, a blank a header value can carry (decoded as latin1). */
function hasBlank(text: string, from: number): boolean {
  for (const blank of BLANKS) if (text.indexOf(blank, from) !== -1) return true;
  return false;
}

const BLANKS = [" ", "\t", "\n", "\v", "\f", "\r", "\u00a0"];

/** Whether the request names the Bearer scheme at all (even with a malformed token): such a request is never anonymous. */
export function claimsBearer(request: ApiRequest): boolean {
  return /^bearer(\s|$)/i.test(request.headers["authorization"] ?? "");
}
