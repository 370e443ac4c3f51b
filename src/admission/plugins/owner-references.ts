import type { OwnerReference } from "../../api/object.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";

/**
 * OwnerReferencesPermissionEnforcement: changing an object's `ownerReferences` needs `delete` on
 * the object; setting `blockOwnerDeletion` on a reference needs `update` on the owner's
 * `finalizers` sub-resource.
 */
export function ownerReferencesPermissionEnforcement(context: PluginContext): AdmissionPlugin {
  return {
    name: "OwnerReferencesPermissionEnforcement",
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async validate(attributes) {
      const { object, user } = attributes;
      if (object === undefined || user === undefined || attributes.subresource !== "") return;
      const now = object.metadata.ownerReferences ?? [];
      const before = attributes.oldObject?.metadata.ownerReferences ?? [];
      if (canonicalJson(now) === canonicalJson(before)) return;
      const { group, resource } = attributes.resource;
      const mayDelete = await context.authorizer.authorize(user, {
        kind: "resource",
        verb: "delete",
        group,
        version: attributes.resource.version,
        namespace: attributes.namespace,
        resource,
        subresource: "",
        name: attributes.name,
      });
      if (mayDelete.kind !== "allow") throw denied(attributes, `cannot set an ownerRef on a resource you can't delete: ${mayDelete.reason}`);
      const blocked = (reference: OwnerReference): boolean => reference.blockOwnerDeletion === true;
      const newlyBlocking = now.filter((reference) => blocked(reference) && !before.some((old) => old.uid === reference.uid && blocked(old)));
      for (const reference of newlyBlocking) {
        const owner = context.resourceOfKind(reference.apiVersion, reference.kind);
        if (owner === undefined)
          throw denied(
            attributes,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${reference.apiVersion} Kind ${reference.kind}`,
          );
        const decision = await context.authorizer.authorize(user, {
          kind: "resource",
          verb: "update",
          group: owner.group,
          version: "*",
          namespace: owner.namespaced ? attributes.namespace : "",
          resource: owner.plural,
          subresource: "finalizers",
          name: reference.name,
        });
        if (decision.kind !== "allow") {
          throw denied(attributes, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${decision.reason}`);
        }
      }
    },
  };
}
