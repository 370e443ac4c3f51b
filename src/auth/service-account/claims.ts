import { isPlainObject } from "../../api/object.js";

export const SERVICE_ACCOUNT_USER_PREFIX = "system:serviceaccount:";
export const SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";

/** `system:serviceaccount:<namespace>:<name>` */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The namespace and name of a service account user name, or undefined for any other user. */
export function parseServiceAccountUserName(user: string): { readonly namespace: string; readonly name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(":");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") return undefined;
  return { namespace: parts[0] ?? "", name: parts[1] ?? "" };
}

/** `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** Claim and extra names that depend on the product profile. */
export interface ClaimNames {
  /** The private claim of bound tokens: the profile's key domain. */
  readonly privateClaim: string;
  /** `iss` of legacy Secret-based tokens. */
  readonly legacyIssuer: string;
  /** Prefix of legacy tokens' claims (`<keyDomain>/serviceaccount/`). */
  readonly legacyClaimPrefix: string;
  /** Prefix of the user extra keys set from bound tokens (`authentication.<keyDomain>/`). */
  readonly extraPrefix: string;
  /** Label on a legacy token's Secret that refuses the token (`<keyDomain>/legacy-token-invalid-since`). */
  readonly legacyInvalidSinceLabel: string;
  /** Label on a legacy token's Secret naming the day of its last use (`<keyDomain>/legacy-token-last-used`). */
  readonly legacyLastUsedLabel: string;
}

export function claimNames(profile: { readonly keyDomain: string; readonly legacyServiceAccountIssuer: string }): ClaimNames {
  return {
    privateClaim: profile.keyDomain,
    legacyIssuer: profile.legacyServiceAccountIssuer,
    legacyClaimPrefix: `${profile.keyDomain}/serviceaccount/`,
    extraPrefix: `authentication.${profile.keyDomain}/`,
    legacyInvalidSinceLabel: `${profile.keyDomain}/legacy-token-invalid-since`,
    legacyLastUsedLabel: `${profile.keyDomain}/legacy-token-last-used`,
  };
}

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What a bound token (TokenRequest) says about who it is for and what it is bound to. */
export interface BoundClaims {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

export interface BoundTokenFacts {
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** `jti`: identifies this credential in the user's extra. */
  readonly id: string;
  readonly claims: BoundClaims;
}

/** The JWT payload of a bound token, in kube's shape. */
export function boundTokenPayload(names: ClaimNames, facts: BoundTokenFacts): Record<string, unknown> {
  const { claims } = facts;
  const privateClaims: Record<string, unknown> = { namespace: claims.namespace };
  if (claims.node !== undefined) privateClaims["node"] = { ...claims.node };
  if (claims.pod !== undefined) privateClaims["pod"] = { ...claims.pod };
  if (claims.secret !== undefined) privateClaims["secret"] = { ...claims.secret };
  privateClaims["serviceaccount"] = { ...claims.serviceAccount };
  return {
    aud: [...facts.audiences],
    exp: facts.expiresAt,
    iat: facts.issuedAt,
    iss: facts.issuer,
    jti: facts.id,
    [names.privateClaim]: privateClaims,
    nbf: facts.issuedAt,
    sub: serviceAccountUserName(claims.namespace, claims.serviceAccount.name),
  };
}

function objectRef(value: unknown): ObjectRef | undefined {
  if (!isPlainObject(value)) return undefined;
  const name = value["name"];
  const uid = value["uid"];
  if (typeof name !== "string" || name === "") return undefined;
  return { name, uid: typeof uid === "string" ? uid : "" };
}

/** The private claims of a bound token; undefined when missing or malformed. */
export function parseBoundClaims(names: ClaimNames, payload: Record<string, unknown>): BoundClaims | undefined {
  const claims = payload[names.privateClaim];
  if (!isPlainObject(claims)) return undefined;
  const namespace = claims["namespace"];
  const serviceAccount = objectRef(claims["serviceaccount"]);
  if (typeof namespace !== "string" || namespace === "" || serviceAccount === undefined) return undefined;
  const refs: { pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef } = {};
  for (const key of ["pod", "secret", "node"] as const) {
    if (claims[key] === undefined) continue;
    const ref = objectRef(claims[key]);
    if (ref === undefined) return undefined;
    refs[key] = ref;
  }
  return { namespace, serviceAccount, ...refs };
}

/** What a legacy (Secret-based, non-expiring) token says. */
export interface LegacyClaims {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly secretName: string;
}

/** The JWT payload of a legacy token, in kube's shape. */
export function legacyTokenPayload(names: ClaimNames, claims: LegacyClaims): Record<string, unknown> {
  const prefix = names.legacyClaimPrefix;
  return {
    iss: names.legacyIssuer,
    [`${prefix}namespace`]: claims.namespace,
    [`${prefix}secret.name`]: claims.secretName,
    [`${prefix}service-account.name`]: claims.serviceAccount.name,
    [`${prefix}service-account.uid`]: claims.serviceAccount.uid,
    sub: serviceAccountUserName(claims.namespace, claims.serviceAccount.name),
  };
}

export function parseLegacyClaims(names: ClaimNames, payload: Record<string, unknown>): LegacyClaims | undefined {
  const prefix = names.legacyClaimPrefix;
  const read = (key: string): string | undefined => {
    const value = payload[`${prefix}${key}`];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const namespace = read("namespace");
  const secretName = read("secret.name");
  const name = read("service-account.name");
  const uid = read("service-account.uid");
  if (namespace === undefined || secretName === undefined || name === undefined || uid === undefined) return undefined;
  return { namespace, secretName, serviceAccount: { name, uid } };
}
