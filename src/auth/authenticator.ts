import type { ApiRequest, UserInfo } from "../request/context.js";

/**
 * The Authenticator seam. `none`: this authenticator found no credential of its kind (try the
 * next); `rejected`: it found one and it is not valid.
 */
export type AuthenticationResult =
  | { readonly kind: "ok"; readonly user: UserInfo }
  | { readonly kind: "none" }
  | { readonly kind: "rejected"; readonly reason: string };

export interface Authenticator {
  readonly name: string;
  authenticate(request: ApiRequest): Promise<AuthenticationResult>;
}

/**
 * Tries each authenticator in order, as kube's union does: the first `ok` wins; a `rejected`
 * does not stop the others (a proxy certificate without proxy headers may still carry a valid
 * bearer token), but when nothing accepts the request, any rejection makes it `rejected`.
 */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    name: "union",
    async authenticate(request) {
      let rejected: string[] | undefined;
      for (const authenticator of authenticators) {
        const result = await authenticator.authenticate(request);
        if (result.kind === "ok") return result;
        if (result.kind === "rejected") (rejected ??= []).push(`${authenticator.name}: ${result.reason}`);
      }
      return rejected === undefined ? { kind: "none" } : { kind: "rejected", reason: rejected.join("; ") };
    },
  };
}

export const AUTHENTICATED_GROUP = "system:authenticated";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const ANONYMOUS_USER_NAME = "system:anonymous";

/** Adds `system:authenticated` as kube does for every authenticated user. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

export const ANONYMOUS_USER: UserInfo = { name: ANONYMOUS_USER_NAME, groups: [UNAUTHENTICATED_GROUP] };
