import { withAuthenticatedGroup } from "./authenticator.js";
import type { TokenAuthenticator } from "./token.js";

/** A TokenReview `status` (authenticated false is left out, as kube's JSON omits it). */
export interface ReviewStatus {
  readonly authenticated?: true;
  readonly user?: {
    readonly username: string;
    readonly uid?: string;
    readonly groups: readonly string[];
    readonly extra?: Readonly<Record<string, readonly string[]>>;
  };
  readonly audiences?: readonly string[];
  readonly error?: string;
}

/**
 * Answers TokenReviews with the same token authenticators requests use: the audiences asked
 * for (the API audiences when none), the user with `system:authenticated` as a request would
 * see it, and the reason when the token is not valid.
 */
export function tokenReviewer(
  tokens: TokenAuthenticator,
  apiAudiences: readonly string[],
): (token: string, audiences: readonly string[]) => Promise<ReviewStatus> {
  return async (token, audiences) => {
    const result = await tokens.authenticateToken(token, audiences.length > 0 ? audiences : apiAudiences);
    if (result.kind !== "ok") return { error: result.kind === "rejected" ? result.reason : "invalid bearer token" };
    const user = withAuthenticatedGroup(result.user);
    return {
      authenticated: true,
      user: {
        username: user.name,
        ...(user.uid === undefined || user.uid === "" ? {} : { uid: user.uid }),
        groups: user.groups,
        ...(user.extra === undefined ? {} : { extra: user.extra }),
      },
      audiences: result.audiences,
    };
  };
}
