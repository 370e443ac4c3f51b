import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";

/**
 * StorageObjectInUseProtection: new PersistentVolumes and PersistentVolumeClaims get the
 * `<keyDomain>/pv-protection` / `pvc-protection` finalizer, so one in use is not removed under a
 * pod (the protection controllers clear it once unused).
 */
export function storageObjectInUseProtection(context: PluginContext): AdmissionPlugin {
  const finalizers: Readonly<Record<string, string>> = {
    persistentvolumes: `${context.names.keyDomain}/pv-protection`,
    persistentvolumeclaims: `${context.names.keyDomain}/pvc-protection`,
  };
  return {
    name: "StorageObjectInUseProtection",
    resources: new Set(Object.keys(finalizers)),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const object = attributes.object;
      const finalizer = finalizers[attributes.resource.resource];
      if (object === undefined || finalizer === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const present = object.metadata.finalizers ?? [];
      if (!present.includes(finalizer)) object.metadata.finalizers = [...present, finalizer];
    },
  };
}
