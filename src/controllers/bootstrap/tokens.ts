import type { ResourceRef } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import type { Profile } from "../../api/profile.js";
import { BOOTSTRAP_SECRET_PREFIX } from "../../auth/bootstrap-token.js";
import { secretValue } from "../../auth/object-reader.js";
import type { SharedInformer } from "../runtime/informer.js";

export const SECRETS: ResourceRef = { group: "", version: "v1", plural: "secrets" };

const TOKEN_ID = /^[a-z0-9]{6}$/;
const TOKEN_SECRET = /^[a-z0-9]{16}$/;

/** A bootstrap token Secret as the controllers read it. */
export interface BootstrapToken {
  readonly secret: ApiObject;
  readonly id: string;
  readonly secretPart: string;
  /** `expiration` in ms; undefined when none; NaN when unparseable. */
  readonly expiresAt: number | undefined;
  readonly signing: boolean;
}

/** A Secret read as a bootstrap token (whether or not valid); undefined when it is not of the bootstrap type. */
export function bootstrapToken(secret: ApiObject, profile: Profile): BootstrapToken | undefined {
  if (secret["type"] !== profile.bootstrapTokenSecretType || secret.metadata.namespace !== profile.systemNamespace) return undefined;
  const expiration = secretValue(secret, "expiration");
  return {
    secret,
    id: secretValue(secret, "token-id") ?? "",
    secretPart: secretValue(secret, "token-secret") ?? "",
    expiresAt: expiration === undefined ? undefined : Date.parse(expiration),
    signing: secretValue(secret, "usage-bootstrap-signing") === "true",
  };
}

/** Every Secret of the bootstrap type in the system namespace, from the shared informer. */
export function bootstrapTokens(secrets: SharedInformer, profile: Profile): BootstrapToken[] {
  return secrets.listNamespace(profile.systemNamespace).flatMap((secret) => bootstrapToken(secret, profile) ?? []);
}

/**
 * Whether a token may sign `cluster-info` at `nowMs`: well-formed id and secret, the Secret named
 * after the id, `usage-bootstrap-signing: "true"`, not expired and not being deleted.
 */
export function canSign(token: BootstrapToken, nowMs: number): boolean {
  return (
    TOKEN_ID.test(token.id) &&
    TOKEN_SECRET.test(token.secretPart) &&
    token.secret.metadata.name === `${BOOTSTRAP_SECRET_PREFIX}${token.id}` &&
    token.signing &&
    token.secret.metadata.deletionTimestamp === undefined &&
    (token.expiresAt === undefined || token.expiresAt > nowMs)
  );
}

/** The earliest expiry after `nowMs` among the tokens, when one is coming. */
export function nextExpiry(tokens: readonly BootstrapToken[], nowMs: number): number | undefined {
  const coming = tokens.map((token) => token.expiresAt).filter((at): at is number => at !== undefined && at > nowMs);
  return coming.length === 0 ? undefined : Math.min(...coming);
}
