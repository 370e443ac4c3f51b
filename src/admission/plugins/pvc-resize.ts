import { apiGroup } from "../../api/profile.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { amount } from "./quantities.js";
import { recordOf, stringOf } from "./pod-spec.js";

function requestedStorage(object: unknown): number | undefined {
  return amount(recordOf(recordOf(recordOf(recordOf(object)["spec"])["resources"])["requests"])["storage"]);
}

/** PersistentVolumeClaimResize: growing a claim's storage request needs its StorageClass to set `allowVolumeExpansion: true`. */
export function persistentVolumeClaimResize(context: PluginContext): AdmissionPlugin {
  const classes = { group: apiGroup(context.profile, "storage"), version: "v1", plural: "storageclasses" };
  return {
    name: "PersistentVolumeClaimResize",
    resources: new Set(["persistentvolumeclaims"]),
    handles: (operation) => operation === "UPDATE",
    async validate(attributes) {
      if (attributes.object === undefined || attributes.oldObject === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const before = requestedStorage(attributes.oldObject);
      const after = requestedStorage(attributes.object);
      if (before === undefined || after === undefined || after <= before) return;
      const className = stringOf(recordOf(attributes.object["spec"])["storageClassName"]);
      const found = className === "" ? undefined : await context.client.get(classes, "", className);
      if (found?.["allowVolumeExpansion"] !== true) {
        throw denied(attributes, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize");
      }
    },
  };
}
