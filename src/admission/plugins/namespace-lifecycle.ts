import { ApiError, forbidden } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";

export interface NamespaceLifecycleOptions {
  /** Reads a namespace; undefined when it does not exist. */
  readonly getNamespace: (name: string) => Promise<ApiObject | undefined>;
  /** The namespace from the watch cache at once; undefined when not cached (then `getNamespace`). */
  readonly cachedNamespace?: (name: string) => ApiObject | undefined;
  /** Namespaces that may never be deleted (`default`, system and public). */
  readonly immortal: ReadonlySet<string>;
}

/**
 * Refuses creating namespaced objects in a missing or terminating namespace, and deleting the
 * immortal namespaces.
 */
export function namespaceLifecycle(options: NamespaceLifecycleOptions): AdmissionPlugin {
  return {
    name: "NamespaceLifecycle",
    handles: (operation) => operation === "CREATE" || operation === "DELETE",
    validate(attributes) {
      const resource = attributes.resource;
      if (attributes.operation === "DELETE") {
        if (resource.group === "" && resource.resource === "namespaces" && options.immortal.has(attributes.name)) {
          throw forbidden(`namespaces "${attributes.name}" is forbidden: this namespace may not be deleted`, {
            group: "",
            resource: "namespaces",
            name: attributes.name,
          });
        }
        return;
      }
      if (!resource.namespaced || attributes.namespace === "") return;
      // A cached namespace is judged at once (no promise on the usual create).
      const cached = options.cachedNamespace?.(attributes.namespace);
      if (cached !== undefined) return judge(attributes, cached);
      return options.getNamespace(attributes.namespace).then((namespace) => judge(attributes, namespace));
    },
  };
}

/** A create in `namespace` (undefined: it does not exist): 404 when missing, 403 when terminating. */
function judge(attributes: AdmissionAttributes, namespace: ApiObject | undefined): void {
  const resource = attributes.resource;
  if (namespace === undefined) {
    throw new ApiError(404, "NotFound", `namespaces "${attributes.namespace}" not found`, { details: { name: attributes.namespace, kind: "namespaces" } });
  }
  const phase = isPlainObject(namespace["status"]) ? namespace["status"]["phase"] : undefined;
  if (phase === "Terminating" || namespace.metadata.deletionTimestamp !== undefined) {
    throw forbidden(
      `${resource.resource} "${attributes.name}" is forbidden: unable to create new content in namespace ${attributes.namespace} because it is being terminated`,
      {
        group: resource.group,
        resource: resource.resource,
        name: attributes.name,
      },
    );
  }
}
