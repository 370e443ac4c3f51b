import { randomUUID } from "node:crypto";
import { boundTokenPayload, legacyTokenPayload, type BoundClaims, type ClaimNames, type LegacyClaims } from "./claims.js";
import { signJwt } from "./jwt.js";
import type { SigningKey } from "./keys.js";

export interface TokenIssuerOptions {
  /** `iss` of bound tokens: the first `--service-account-issuer`. */
  readonly issuer: string;
  /** `--service-account-signing-key-file`, read per token so a reload applies at once. */
  readonly signingKey: () => SigningKey;
  readonly names: ClaimNames;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
  readonly newId?: () => string;
}

export interface BoundTokenRequest {
  readonly claims: BoundClaims;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
}

/** Signs service-account tokens. */
export interface ServiceAccountTokenIssuer {
  /** A bound token (TokenRequest); `expiresAt` in ms since the epoch. */
  issueBound(request: BoundTokenRequest): Promise<{ readonly token: string; readonly expiresAt: number }>;
  /** A legacy, non-expiring token for a token Secret. */
  issueLegacy(claims: LegacyClaims): Promise<string>;
}

export function serviceAccountTokenIssuer(options: TokenIssuerOptions): ServiceAccountTokenIssuer {
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  return {
    async issueBound(request) {
      const issuedAt = Math.floor(now() / 1000);
      const expiresAt = issuedAt + request.expirationSeconds;
      const payload = boundTokenPayload(options.names, {
        issuer: options.issuer,
        audiences: request.audiences,
        issuedAt,
        expiresAt,
        id: newId(),
        claims: request.claims,
      });
      return { token: await signJwt(payload, options.signingKey()), expiresAt: expiresAt * 1000 };
    },
    async issueLegacy(claims) {
      return signJwt(legacyTokenPayload(options.names, claims), options.signingKey());
    },
  };
}
