import type { AdmissionPlugin } from "../interface.js";
import { denied } from "../deny.js";
import { containersOf, specOf, stringOf } from "./pod-spec.js";

/**
 * AlwaysPullImages: every container of a created or updated pod (and its ephemeral containers)
 * gets `imagePullPolicy: Always`, so a node's cached image is never used without the registry's
 * say; the validating phase refuses a pod whose policy another mutator changed back.
 */
export function alwaysPullImages(): AdmissionPlugin {
  const applies = (subresource: string): boolean => subresource === "" || subresource === "ephemeralcontainers";
  return {
    name: "AlwaysPullImages",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async mutate(attributes) {
      if (attributes.object === undefined || attributes.resource.group !== "" || !applies(attributes.subresource)) return;
      for (const container of containersOf(specOf(attributes.object), { ephemeral: true })) container["imagePullPolicy"] = "Always";
    },
    async validate(attributes) {
      if (attributes.object === undefined || attributes.resource.group !== "" || !applies(attributes.subresource)) return;
      for (const container of containersOf(specOf(attributes.object), { ephemeral: true })) {
        if (container["imagePullPolicy"] !== "Always") {
          throw denied(
            attributes,
            `spec.containers[${stringOf(container["name"])}].imagePullPolicy: Unsupported value: "${stringOf(container["imagePullPolicy"])}": supported values: "Always"`,
          );
        }
      }
    },
  };
}
