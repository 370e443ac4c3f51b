import { ApiError } from "../../api/errors.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";

const NAMESPACES = { group: "", version: "v1", plural: "namespaces" };

function namespaceNotFound(name: string): ApiError {
  return new ApiError(404, "NotFound", `namespaces "${name}" not found`, { details: { name, kind: "namespaces" } });
}

/** NamespaceExists: a write to a namespaced object in a namespace that does not exist is 404. */
export function namespaceExists(context: PluginContext): AdmissionPlugin {
  return {
    name: "NamespaceExists",
    handles: () => true,
    async validate(attributes) {
      if (!attributes.resource.namespaced || attributes.namespace === "") return;
      if ((await context.client.get(NAMESPACES, "", attributes.namespace)) === undefined) throw namespaceNotFound(attributes.namespace);
    },
  };
}

/**
 * NamespaceAutoProvision: creating a namespaced object in a missing namespace creates the
 * namespace first. It writes, so dry-run requests skip it.
 */
export function namespaceAutoProvision(context: PluginContext): AdmissionPlugin {
  return {
    name: "NamespaceAutoProvision",
    sideEffects: true,
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      if (!attributes.resource.namespaced || attributes.namespace === "") return;
      if ((await context.client.get(NAMESPACES, "", attributes.namespace)) !== undefined) return;
      try {
        await context.client.create(NAMESPACES, "", { apiVersion: "v1", kind: "Namespace", metadata: { name: attributes.namespace } });
      } catch (error) {
        if (!(error instanceof ApiError && error.reason === "AlreadyExists")) throw error;
      }
    },
  };
}
