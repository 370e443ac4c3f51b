import type { ApiRequest, UserInfo } from "../request/context.js";

/**
 * The Authenticator seam. `none`: this authenticator found no credential of its kind (try the
 * next); `rejected`: it found one and it is invalid (the request is 401, no other is tried).
 */
export type AuthenticationResult =
  | { readonly kind: "ok"; readonly user: UserInfo }
  | { readonly kind: "none" }
  | { readonly kind: "rejected"; readonly reason: string };

export interface Authenticator {
  readonly name: string;
  authenticate(request: ApiRequest): Promise<AuthenticationResult>;
}

/** Tries each authenticator in order; the first `ok` or `rejected` decides. */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    name: "union",
    async authenticate(request) {
      for (const authenticator of authenticators) {
        const result = await authenticator.authenticate(request);
        if (result.kind !== "none") return result;
      }
      return { kind: "none" };
    },
  };
}

/** Adds `system:authenticated` as kube does for every authenticated user. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes("system:authenticated") ? user : { ...user, groups: [...user.groups, "system:authenticated"] };
}

export const ANONYMOUS_USER: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
