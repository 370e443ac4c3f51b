import { nowTimestamp } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { defineResource } from "../define.js";

/**
 * SelfSubjectReview (`authentication.<apiDomain>/v1`, what `kubectl auth whoami` posts): answers
 * with the caller's identity as the server sees it, after authentication and impersonation.
 * Create-only, never stored.
 */
export function selfSubjectReviewResource(profile: Profile): ResourceDefinition {
  const group = apiGroup(profile, "authentication");
  return defineResource({
    group,
    version: "v1",
    kind: "SelfSubjectReview",
    plural: "selfsubjectreviews",
    scope: "Cluster",
    virtual: {
      group,
      version: "v1",
      kind: "SelfSubjectReview",
      async create({ user }) {
        const userInfo: Record<string, unknown> = { username: user?.name ?? "" };
        if (user?.uid !== undefined && user.uid !== "") userInfo["uid"] = user.uid;
        userInfo["groups"] = [...(user?.groups ?? [])];
        if (user?.extra !== undefined && Object.keys(user.extra).length > 0) userInfo["extra"] = user.extra;
        return { apiVersion: `${group}/v1`, kind: "SelfSubjectReview", metadata: { creationTimestamp: nowTimestamp() }, status: { userInfo } };
      },
    },
  });
}
