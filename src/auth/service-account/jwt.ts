import { isPlainObject } from "../../api/object.js";
import type { SigningKey, VerificationKey } from "./keys.js";

type Jose = typeof import("jose");

let jose: Promise<Jose> | undefined;

/** jose is loaded on first use (it takes tens of milliseconds): warm starts and clients without tokens never pay for it. */
function loadJose(): Promise<Jose> {
  jose ??= import("jose");
  return jose;
}

/** A compact JWS's header and payload, decoded but not verified. */
export interface UnverifiedJwt {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodePart(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Decodes `header.payload.signature` without verifying it; undefined when it is not a JWT. */
export function decodeUnverified(token: string): UnverifiedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) return undefined;
  const header = decodePart(parts[0] ?? "");
  const payload = decodePart(parts[1] ?? "");
  if (!isPlainObject(header) || !isPlainObject(payload)) return undefined;
  return { header, payload };
}

/** Signs a payload as a compact JWS with the key's algorithm and `kid` header, as kube does. */
export async function signJwt(payload: Record<string, unknown>, key: SigningKey): Promise<string> {
  const { SignJWT } = await loadJose();
  return new SignJWT(payload).setProtectedHeader({ alg: key.algorithm, kid: key.kid }).sign(key.key);
}

/**
 * Whether one of the keys signed the token. Keys whose id matches the header's `kid` are tried
 * first; every key is tried when none matches (tokens of other signers may have no `kid`).
 */
export async function verifySignature(token: string, keys: readonly VerificationKey[], kid: unknown): Promise<boolean> {
  const { compactVerify } = await loadJose();
  const matching = typeof kid === "string" ? keys.filter((key) => key.kid === kid) : [];
  for (const key of matching.length > 0 ? matching : keys) {
    try {
      await compactVerify(token, key.key, { algorithms: [key.algorithm] });
      return true;
    } catch {
      // not this key
    }
  }
  return false;
}
