import { ApiError, badRequest } from "../../../api/errors.js";
import { isPlainObject } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { defineResource } from "../define.js";

/** A TokenReview's `status`, as the server fills it. `authenticated` false is omitted, as kube's JSON does. */
export interface TokenReviewStatus {
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

/** Checks a token for the given audiences (empty: the API's own). */
export type TokenReviewer = (token: string, audiences: readonly string[]) => Promise<TokenReviewStatus>;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * TokenReview in `authentication.<apiDomain>`: `v1`, and `v1beta1` when `--runtime-config`
 * turns it on (the version the token webhook speaks). Create-only and never stored: POST a
 * review with `spec.token` (and optionally `spec.audiences`) and get it back with `status`.
 */
export function tokenReviewResources(profile: Profile, review: TokenReviewer): ResourceDefinition[] {
  const group = apiGroup(profile, "authentication");
  return (["v1", "v1beta1"] as const).map((version) =>
    defineResource({
      group,
      version,
      kind: "TokenReview",
      plural: "tokenreviews",
      scope: "Cluster",
      defaultOff: version !== "v1",
      ...(version === "v1beta1" ? { deprecation: { since: "1.19", removedIn: "1.22", replacement: `${group}/v1` } } : {}),
      virtual: {
        group,
        version,
        kind: "TokenReview",
        async create({ object }) {
          const spec = isPlainObject(object["spec"]) ? object["spec"] : {};
          const token = spec["token"];
          if (typeof token !== "string" || token === "") throw badRequest("token is required for TokenReview in authentication");
          const status = await review(token, strings(spec["audiences"]));
          return { apiVersion: `${group}/${version}`, kind: "TokenReview", metadata: {}, spec, status };
        },
      },
    }),
  );
}

/**
 * TokenReview's seat for the authenticators: the registry is built with it and the composition
 * root fills it once the authenticators (which read the registry's objects) exist. Reviews
 * before that answer 503.
 */
export class TokenReviewerSlot {
  private reviewer: TokenReviewer | undefined;

  fill(reviewer: TokenReviewer): void {
    this.reviewer = reviewer;
  }

  readonly review: TokenReviewer = (token, audiences) => {
    if (this.reviewer === undefined) return Promise.reject(new ApiError(503, "ServiceUnavailable", "the authenticator is not ready yet"));
    return this.reviewer(token, audiences);
  };
}
