import { apiGroup, type Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { defineResource } from "../define.js";

/**
 * `apiregistration.<apiDomain>/v1`: APIService, cluster-scoped, named `<version>.<group>` (a path
 * segment: the core group's is `v1.`), with a status the availability controllers write. Which
 * server answers a group version follows from these objects (`controllers/apiservice`).
 */
export function apiregistrationResources(profile: Profile): ResourceDefinition[] {
  return [
    defineResource({
      group: apiGroup(profile, "apiregistration"),
      version: "v1",
      kind: "APIService",
      plural: "apiservices",
      scope: "Cluster",
      categories: ["api-extensions"],
      subresources: ["status"],
      nameRule: "path-segment",
    }),
  ];
}
