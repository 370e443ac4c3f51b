import type { ResourceDefinition } from "../../definition.js";
import { APPS_SCALE } from "../../scale.js";
import { defineResource } from "../define.js";

/**
 * apps/v1 resources declared with server-side apply (the catalogue declares the other apps
 * kinds). Deployments are stored as sent, with status and scale sub-resources and generation;
 * no controller yet.
 * Defaulting and validation (selector matches the template's labels, replicas ≥ 0) come from the
 * schema catalogue (`api/schema/rules/workloads.ts`).
 */
export function appsResources(): ResourceDefinition[] {
  return [
    defineResource({
      group: "apps",
      version: "v1",
      kind: "Deployment",
      plural: "deployments",
      scope: "Namespaced",
      shortNames: ["deploy"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      scale: APPS_SCALE,
    }),
  ];
}
