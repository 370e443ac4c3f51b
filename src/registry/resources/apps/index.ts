import { canonicalJson } from "../../../util/canonical-json.js";
import type { ResourceDefinition, Strategy } from "../../definition.js";
import { APPS_SCALE } from "../../scale.js";
import { defineResource } from "../define.js";

/**
 * kube's Deployment strategy bumps the generation when the annotations change as well as the spec
 * (a Deployment's annotations are copied to its ReplicaSets); the Store has bumped it for the spec.
 */
export const DEPLOYMENT_STRATEGY: Partial<Strategy> = {
  prepareForUpdate(object, old) {
    const generation = old.metadata.generation;
    if (typeof generation !== "number" || object.metadata.generation !== generation) return;
    if (canonicalJson(object.metadata.annotations ?? {}) !== canonicalJson(old.metadata.annotations ?? {})) object.metadata.generation = generation + 1;
  },
};

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
      strategy: DEPLOYMENT_STRATEGY,
    }),
  ];
}
