import { timingSafeEqual } from "node:crypto";
import type { UserInfo } from "../../request/context.js";
import { LruCache } from "../../util/lru-cache.js";
import { secretValue, type ObjectReader } from "../object-reader.js";
import type { TokenAuthenticator, TokenResult } from "../token.js";
import { parseBoundClaims, parseLegacyClaims, serviceAccountGroups, serviceAccountUserName, type ClaimNames } from "./claims.js";
import { decodeUnverified, verifySignature } from "./jwt.js";
import type { VerificationKey } from "./keys.js";

export interface ServiceAccountAuthenticatorOptions {
  /** `--service-account-issuer`: the `iss` values bound tokens may carry. */
  readonly issuers: readonly string[];
  /** `--api-audiences`: the implicit audiences of tokens without `aud`. */
  readonly apiAudiences: readonly string[];
  /** `--service-account-key-file` keys, read per verification so a reload applies at once. */
  readonly keys: () => readonly VerificationKey[];
  readonly objects: ObjectReader;
  readonly names: ClaimNames;
  /** Milliseconds since the epoch (injectable for tests). */
  readonly now?: () => number;
  /** Verified tokens remembered, at most (default 4096). */
  readonly cacheSize?: number;
  /**
   * Called after a legacy (Secret-based) token was presented, accepted or refused as marked
   * invalid, with the Secret's current last-used label: kube labels the Secret with the day.
   */
  readonly legacyTokenUsed?: (namespace: string, secretName: string, lastUsed: string | undefined) => void;
}

/** Tolerated clock skew for `nbf`/`iat` of tokens signed elsewhere. `exp` has none: we are the clock that matters. */
const SKEW_MS = 60_000;
/** A bound object marked for deletion keeps its tokens valid this long (kube's grace for terminating pods). */
const DELETION_GRACE_MS = 60_000;

/** An object a token depends on; its revision memoises the last successful check. */
interface Binding {
  readonly plural: string;
  readonly namespace: string;
  readonly name: string;
  /** Empty: any object of that name. */
  readonly uid: string;
  /** Legacy tokens: the Secret must still hold this very token (and must not be marked invalid). */
  readonly token?: string;
  readonly graceMs: number;
  /** Legacy tokens: the account the Secret's token is for (named in kube's refusal). */
  readonly serviceAccount?: string;
  /** Legacy tokens: the Secret's last-used label as of `revision`. */
  lastUsed?: string | undefined;
  revision: number;
  deletedAt: number | undefined;
}

/** Characters of a token's end (its signature) that key the verification cache. */
const FINGERPRINT_LENGTH = 43;

/** What verifying a token's signature and claims established: what later uses re-check cheaply. */
interface Verification {
  readonly user: UserInfo;
  readonly tokenAudiences: readonly string[];
  /** `exp` in ms; Infinity for tokens without one (legacy). */
  readonly expires: number;
  readonly bindings: readonly Binding[];
  /** The key set it verified against: a reloaded key file forces a new verification. */
  readonly keys: readonly VerificationKey[];
}

/** A cached verification and the whole token it is for: a cache hit must match it exactly. */
interface Verified extends Verification {
  readonly token: string;
}

function binding(plural: string, namespace: string, name: string, uid: string, graceMs: number, token?: string): Binding {
  return { plural, namespace, name, uid, graceMs, revision: -1, deletedAt: undefined, ...(token === undefined ? {} : { token }) };
}

function audiencesOf(aud: unknown): string[] | undefined {
  if (aud === undefined) return [];
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud) && aud.every((item): item is string => typeof item === "string")) return aud;
  return undefined;
}

function sameToken(stored: string | undefined, presented: string): boolean {
  if (stored === undefined) return false;
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

const rejected = (reason: string): TokenResult => ({ kind: "rejected", reason });

/** Go's `%q` of a string slice: `["a" "b"]`. */
function goQuoted(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(" ")}]`;
}

/**
 * Service-account JWTs: bound tokens (TokenRequest; `iss` one of the issuers, audiences, expiry,
 * bound to the account and optionally a pod, secret or node) and legacy tokens (issuer
 * `<product>/serviceaccount`, valid while their Secret holds them). The signature and claims are
 * verified once per token and remembered (an LRU keyed by the token's end, confirmed by the whole
 * token); every use re-checks
 * expiry, audiences and that each bound object still exists with the same uid — from the watch
 * cache, comparing revisions, so a cached verification costs a few map lookups.
 * Tokens with another issuer, and non-JWTs, are `none`.
 */
export function serviceAccountAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const now = options.now ?? Date.now;
  const cache = new LruCache<string, Verified>(options.cacheSize ?? 4096, now);
  const { names } = options;

  async function verify(token: string): Promise<Verification | TokenResult> {
    const jwt = decodeUnverified(token);
    if (jwt === undefined) return { kind: "none" };
    const issuer = jwt.payload["iss"];
    const legacy = issuer === names.legacyIssuer;
    if (!legacy && !(typeof issuer === "string" && options.issuers.includes(issuer))) return { kind: "none" };
    const keys = options.keys();
    if (!(await verifySignature(token, keys, jwt.header["kid"]))) return rejected("invalid signature");
    const { exp, nbf, iat } = jwt.payload;
    for (const [name, value] of [
      ["exp", exp],
      ["nbf", nbf],
      ["iat", iat],
    ] as const) {
      if (value !== undefined && typeof value !== "number") return rejected(`malformed ${name} claim`);
    }
    const nowMs = now();
    const expires = typeof exp === "number" ? exp * 1000 : Number.POSITIVE_INFINITY;
    if (expires <= nowMs) return rejected("service account token has expired");
    if (typeof nbf === "number" && nbf * 1000 > nowMs + SKEW_MS) return rejected("service account token is not valid yet");
    if (typeof iat === "number" && iat * 1000 > nowMs + SKEW_MS) return rejected("service account token was issued in the future");
    const declared = audiencesOf(jwt.payload["aud"]);
    if (declared === undefined) return rejected("malformed aud claim");
    const tokenAudiences = declared.length === 0 ? options.apiAudiences : declared;
    if (legacy) {
      const claims = parseLegacyClaims(names, jwt.payload);
      if (claims === undefined) return rejected("malformed legacy service account token claims");
      return {
        user: {
          name: serviceAccountUserName(claims.namespace, claims.serviceAccount.name),
          uid: claims.serviceAccount.uid,
          groups: serviceAccountGroups(claims.namespace),
        },
        tokenAudiences,
        expires,
        keys,
        bindings: [
          { ...binding("secrets", claims.namespace, claims.secretName, "", 0, token), serviceAccount: claims.serviceAccount.name },
          binding("serviceaccounts", claims.namespace, claims.serviceAccount.name, claims.serviceAccount.uid, 0),
        ],
      };
    }
    const claims = parseBoundClaims(names, jwt.payload);
    if (claims === undefined) return rejected("malformed service account token claims");
    const bindings = [binding("serviceaccounts", claims.namespace, claims.serviceAccount.name, claims.serviceAccount.uid, DELETION_GRACE_MS)];
    const extra: Record<string, string[]> = {};
    if (claims.pod !== undefined) {
      bindings.push(binding("pods", claims.namespace, claims.pod.name, claims.pod.uid, DELETION_GRACE_MS));
      extra[`${names.extraPrefix}pod-name`] = [claims.pod.name];
      extra[`${names.extraPrefix}pod-uid`] = [claims.pod.uid];
    }
    if (claims.secret !== undefined) bindings.push(binding("secrets", claims.namespace, claims.secret.name, claims.secret.uid, DELETION_GRACE_MS));
    if (claims.node !== undefined) {
      // A pod-bound token names the pod's node for information; only a node-bound token depends on it.
      if (claims.pod === undefined) bindings.push(binding("nodes", "", claims.node.name, claims.node.uid, DELETION_GRACE_MS));
      extra[`${names.extraPrefix}node-name`] = [claims.node.name];
      extra[`${names.extraPrefix}node-uid`] = [claims.node.uid];
    }
    const id = jwt.payload["jti"];
    if (typeof id === "string" && id !== "") extra[`${names.extraPrefix}credential-id`] = [`JTI=${id}`];
    const user: UserInfo = {
      name: serviceAccountUserName(claims.namespace, claims.serviceAccount.name),
      uid: claims.serviceAccount.uid,
      groups: serviceAccountGroups(claims.namespace),
      extra,
    };
    return { user, tokenAudiences, expires, keys, bindings };
  }

  /** Re-checks one bound object; returns why the token is no longer valid, or undefined. */
  async function stale(binding: Binding): Promise<string | undefined> {
    const snapshot = await options.objects.read(binding.plural, binding.namespace, binding.name);
    const what = (): string => `${binding.plural} ${binding.namespace === "" ? "" : `${binding.namespace}/`}${binding.name}`;
    if (snapshot === undefined) return `${what()} no longer exists: the token has been invalidated`;
    if (snapshot.revision !== binding.revision) {
      const object = snapshot.object();
      if (binding.uid !== "" && object.metadata.uid !== binding.uid) return `${what()} was replaced (uid differs): the token has been invalidated`;
      if (binding.token !== undefined && !sameToken(secretValue(object, "token"), binding.token)) return `the token does not match the copy in ${what()}`;
      if (binding.token !== undefined) binding.lastUsed = object.metadata.labels?.[names.legacyLastUsedLabel];
      if (binding.token !== undefined && binding.serviceAccount !== undefined && (object.metadata.labels?.[names.legacyInvalidSinceLabel] ?? "") !== "") {
        options.legacyTokenUsed?.(binding.namespace, binding.name, binding.lastUsed);
        return `the token in secret ${binding.namespace}/${binding.name} for service account ${binding.namespace}/${binding.serviceAccount} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${names.legacyInvalidSinceLabel}' label from the secret to temporarily allow use of this token`;
      }
      const deletion = object.metadata.deletionTimestamp;
      binding.deletedAt = deletion === undefined ? undefined : Date.parse(deletion);
      binding.revision = snapshot.revision;
    }
    if (binding.deletedAt !== undefined && binding.deletedAt + binding.graceMs <= now()) return `${what()} is being deleted: the token has been invalidated`;
    return undefined;
  }

  return {
    name: "service-account",
    async authenticateToken(token, audiences) {
      // Keyed by the token's last characters (its signature's) and confirmed by comparing the
      // whole token: hashing a kilobyte of fresh string per request (as a SHA-256 or a Map keyed
      // by the token would) costs more than the whole check below.
      const key = token.slice(-FINGERPRINT_LENGTH);
      let verified = cache.get(key);
      if (verified !== undefined && (verified.token !== token || verified.keys !== options.keys())) verified = undefined;
      if (verified === undefined) {
        const outcome = await verify(token);
        if (!("bindings" in outcome)) return outcome;
        verified = { ...outcome, token };
        cache.set(key, verified, verified.expires);
      }
      if (verified.expires <= now()) return rejected("service account token has expired");
      const matching = verified.tokenAudiences.filter((audience) => audiences.includes(audience));
      if (matching.length === 0 && options.apiAudiences.length > 0) {
        // kube's words, its lists printed as Go's %q prints them.
        return rejected(`token audiences ${goQuoted(verified.tokenAudiences)} is invalid for the target audiences ${goQuoted(audiences)}`);
      }
      for (const bound of verified.bindings) {
        // The verdict stays cached: a revoked token is refused again without another signature check.
        const reason = await stale(bound);
        if (reason !== undefined) return rejected(reason);
      }
      const legacySecret = verified.bindings[0];
      if (legacySecret?.token !== undefined) options.legacyTokenUsed?.(legacySecret.namespace, legacySecret.name, legacySecret.lastUsed);
      return { kind: "ok", user: verified.user, audiences: matching };
    },
  };
}
