import { timingSafeEqual } from "node:crypto";
import { secretValue, type ObjectReader } from "./object-reader.js";
import type { TokenAuthenticator } from "./token.js";

/** `<token-id>.<token-secret>`; the id is public, the secret is not. */
export const BOOTSTRAP_TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** Extra groups must be in the bootstrappers' namespace of groups. */
const BOOTSTRAP_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export const BOOTSTRAPPERS_GROUP = "system:bootstrappers";
export const BOOTSTRAP_USER_PREFIX = "system:bootstrap:";
export const BOOTSTRAP_SECRET_PREFIX = "bootstrap-token-";

export interface BootstrapTokenOptions {
  readonly objects: ObjectReader;
  /** Where the token Secrets live (the profile's system namespace). */
  readonly namespace: string;
  /** The Secret type they must have (the profile's bootstrap token type). */
  readonly secretType: string;
  readonly now?: () => number;
}

function sameSecret(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Bootstrap tokens (`--enable-bootstrap-token-auth`): a token `<id>.<secret>` is valid while the
 * Secret `bootstrap-token-<id>` in the system namespace has the bootstrap type, the same id and
 * secret, `usage-bootstrap-authentication: "true"`, no past `expiration`, and is not being
 * deleted. User `system:bootstrap:<id>`, groups `system:bootstrappers` plus `auth-extra-groups`
 * (each must be `system:bootstrappers:…`, else the token is refused).
 */
export function bootstrapTokenAuthenticator(options: BootstrapTokenOptions): TokenAuthenticator {
  const now = options.now ?? Date.now;
  return {
    name: "bootstrap-token",
    async authenticateToken(token) {
      const match = BOOTSTRAP_TOKEN.exec(token);
      if (match === null) return { kind: "none" };
      const id = match[1] ?? "";
      const secretPart = match[2] ?? "";
      const snapshot = await options.objects.read("secrets", options.namespace, `${BOOTSTRAP_SECRET_PREFIX}${id}`);
      if (snapshot === undefined) return { kind: "rejected", reason: `no bootstrap token with id ${id}` };
      const secret = snapshot.object();
      if (secret["type"] !== options.secretType) return { kind: "rejected", reason: `secret for token ${id} has the wrong type` };
      if (secret.metadata.deletionTimestamp !== undefined) return { kind: "rejected", reason: `token ${id} is being deleted` };
      if (secretValue(secret, "token-id") !== id) return { kind: "rejected", reason: `secret for token ${id} names another id` };
      const expected = secretValue(secret, "token-secret");
      if (expected === undefined || !sameSecret(expected, secretPart)) return { kind: "rejected", reason: `token ${id} has the wrong secret` };
      if (secretValue(secret, "usage-bootstrap-authentication") !== "true") return { kind: "rejected", reason: `token ${id} is not usable for authentication` };
      const expiration = secretValue(secret, "expiration");
      if (expiration !== undefined) {
        const expires = Date.parse(expiration);
        if (Number.isNaN(expires)) return { kind: "rejected", reason: `token ${id} has an invalid expiration` };
        if (expires <= now()) return { kind: "rejected", reason: `token ${id} has expired` };
      }
      const extraGroups = (secretValue(secret, "auth-extra-groups") ?? "")
        .split(",")
        .map((group) => group.trim())
        .filter((group) => group !== "");
      const invalid = extraGroups.find((group) => !BOOTSTRAP_GROUP.test(group));
      if (invalid !== undefined) return { kind: "rejected", reason: `token ${id} has an invalid extra group "${invalid}"` };
      return { kind: "ok", user: { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: [BOOTSTRAPPERS_GROUP, ...new Set(extraGroups)] }, audiences: [] };
    },
  };
}
