import type { Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { tokenRequestHandler, type TokenRequestOptions } from "../core/token-request.js";
import { withSubresourceHandler } from "../define.js";
import { selfSubjectReviewResources } from "./self-subject-review.js";
import { tokenReviewResources, type TokenReviewer } from "./token-review.js";

export { TokenReviewerSlot, type TokenReviewer, type TokenReviewStatus } from "./token-review.js";
export type { TokenRequestClaims, TokenRequestOptions } from "../core/token-request.js";

/** What the authentication APIs need from the authentication stack. */
export interface AuthenticationApis {
  /** Backs TokenReview. */
  readonly review: TokenReviewer;
  /** Backs `serviceaccounts/{name}/token`; without a signing key it is not served. */
  readonly tokenRequest?: TokenRequestOptions;
}

/**
 * The definitions plus the authentication group (`authentication.<apiDomain>`: TokenReview,
 * SelfSubjectReview) and the `token` sub-resource of service accounts.
 */
export function withAuthenticationApis(profile: Profile, definitions: readonly ResourceDefinition[], apis: AuthenticationApis): ResourceDefinition[] {
  const withToken =
    apis.tokenRequest === undefined
      ? [...definitions]
      : withSubresourceHandler(definitions, { group: "", version: "v1", plural: "serviceaccounts" }, "token", tokenRequestHandler(profile, apis.tokenRequest));
  return [...withToken, ...tokenReviewResources(profile, apis.review), ...selfSubjectReviewResources(profile)];
}
