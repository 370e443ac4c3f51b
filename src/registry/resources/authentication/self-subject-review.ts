import { nowTimestamp } from "../../../api/object.js";
import { apiGroup, type Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { defineResource } from "../define.js";

/**
 * SelfSubjectReview (`authentication.<apiDomain>`, what `kubectl auth whoami` posts): answers
 * with the caller's identity as the server sees it, after authentication and impersonation.
 * Create-only, never stored. Served at v1 and, when `--runtime-config` turns it on as kube 1.30
 * does, at v1beta1 (kubectl 1.27 asks only for v1beta1 and v1alpha1).
 */
export function selfSubjectReviewResources(profile: Profile): ResourceDefinition[] {
  const group = apiGroup(profile, "authentication");
  return (["v1", "v1beta1"] as const).map((version) =>
    defineResource({
      group,
      version,
      kind: "SelfSubjectReview",
      plural: "selfsubjectreviews",
      scope: "Cluster",
      defaultOff: version !== "v1",
      virtual: {
        group,
        version,
        kind: "SelfSubjectReview",
        async create({ user }) {
          const userInfo: Record<string, unknown> = { username: user?.name ?? "" };
          if (user?.uid !== undefined && user.uid !== "") userInfo["uid"] = user.uid;
          userInfo["groups"] = [...(user?.groups ?? [])];
          if (user?.extra !== undefined && Object.keys(user.extra).length > 0) userInfo["extra"] = user.extra;
          return { apiVersion: `${group}/${version}`, kind: "SelfSubjectReview", metadata: { creationTimestamp: nowTimestamp() }, status: { userInfo } };
        },
      },
    }),
  );
}
