import { badRequest } from "../api/errors.js";
import { headerValues, type ApiRequest, type UserInfo } from "../request/context.js";
import { ANONYMOUS_USER_NAME, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from "./authenticator.js";
import { extraFromHeaders } from "./request-header.js";
import { parseServiceAccountUserName, serviceAccountGroups } from "./service-account/claims.js";

export const IMPERSONATE_USER = "impersonate-user";
export const IMPERSONATE_GROUP = "impersonate-group";
export const IMPERSONATE_UID = "impersonate-uid";
export const IMPERSONATE_EXTRA_PREFIX = "impersonate-extra-";

/** The identity a request asks to act as. */
export interface ImpersonationRequest {
  readonly user: string;
  /** Set when `user` is a service account's user name. */
  readonly serviceAccount: { readonly namespace: string; readonly name: string } | undefined;
  readonly groups: readonly string[];
  readonly uid: string | undefined;
  /** Keys lower-cased and percent-decoded. */
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * Reads the `Impersonate-*` headers: undefined when there are none; 400 when a group, uid or
 * extra is asked for without `Impersonate-User`.
 */
export function parseImpersonation(request: ApiRequest): ImpersonationRequest | undefined {
  // Fast path for nearly every request: no header even starts like an impersonation header.
  let asked = false;
  for (const name in request.headers) {
    if (name.startsWith("impersonate-")) {
      asked = true;
      break;
    }
  }
  if (!asked) return undefined;
  const user = headerValues(request, IMPERSONATE_USER).find((value) => value !== "");
  const groups = headerValues(request, IMPERSONATE_GROUP);
  const uid = headerValues(request, IMPERSONATE_UID).find((value) => value !== "");
  const extra = extraFromHeaders(request, [IMPERSONATE_EXTRA_PREFIX]) ?? {};
  const others = [...groups.map((group) => `group ${group}`), ...(uid === undefined ? [] : [`uid ${uid}`]), ...Object.keys(extra).map((key) => `extra ${key}`)];
  if (user === undefined) {
    if (others.length > 0) throw badRequest(`requested [${others.join(", ")}] without impersonating a user`);
    return undefined;
  }
  return { user, serviceAccount: parseServiceAccountUserName(user), groups, uid, extra };
}

/**
 * The identity to act as, completed as kube does: a service account without explicit groups
 * gets its fixed groups; a non-anonymous user gets `system:authenticated` unless one of the
 * two special groups was asked for; the anonymous user gets `system:unauthenticated`.
 */
export function impersonatedUser(request: ImpersonationRequest): UserInfo {
  let groups = [...request.groups];
  if (request.serviceAccount !== undefined && groups.length === 0) groups = serviceAccountGroups(request.serviceAccount.namespace);
  if (request.user === ANONYMOUS_USER_NAME) {
    if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  } else if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(AUTHENTICATED_GROUP);
  }
  const hasExtra = Object.keys(request.extra).length > 0;
  return {
    name: request.user,
    groups,
    ...(request.uid === undefined ? {} : { uid: request.uid }),
    ...(hasExtra ? { extra: request.extra } : {}),
  };
}
