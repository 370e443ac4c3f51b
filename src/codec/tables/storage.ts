import type { ApiObject } from "../../api/object.js";
import { boolean, integer, text, AGE, NAME, type CellContext, type KindTables } from "./column.js";
import { list, record, str } from "./format.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);

/** The name, marked ` (default)` when an is-default-class annotation (stable or beta) says "true". */
function storageClassName(storageClass: ApiObject, context: CellContext): string {
  const annotations = storageClass.metadata.annotations ?? {};
  const isDefault =
    annotations[`storageclass.${context.keyDomain}/is-default-class`] === "true" ||
    annotations[`storageclass.beta.${context.keyDomain}/is-default-class`] === "true";
  return `${storageClass.metadata.name ?? ""}${isDefault ? " (default)" : ""}`;
}

/** An optional flag with the value it defaults to when unset. */
const flag = (value: unknown, unset: boolean): boolean => (typeof value === "boolean" ? value : unset);

export const STORAGE_TABLES: KindTables = {
  StorageClass: [
    { name: "Name", type: "string", format: "name", description: "The class's name, marked when it is the default.", cell: storageClassName },
    text("Provisioner", "The volume plugin that provisions volumes.", (object) => str(object["provisioner"])),
    text("ReclaimPolicy", "What happens to released volumes.", (object) => str(object["reclaimPolicy"]) || "Delete"),
    text("VolumeBindingMode", "When volumes are bound and provisioned.", (object) => str(object["volumeBindingMode"]) || "Immediate"),
    text("AllowVolumeExpansion", "Whether claims may grow.", (object) => flag(object["allowVolumeExpansion"], false)),
    AGE,
  ],
  CSIDriver: [
    NAME,
    boolean("AttachRequired", "Whether volumes need an attach step.", (object) => flag(spec(object)["attachRequired"], true)),
    boolean("PodInfoOnMount", "Whether mounts receive pod information.", (object) => flag(spec(object)["podInfoOnMount"], false)),
    boolean("StorageCapacity", "Whether the driver reports storage capacity.", (object) => flag(spec(object)["storageCapacity"], false)),
    text("TokenRequests", "Audiences of the service account tokens the driver receives.", (object) => {
      const requests = spec(object)["tokenRequests"];
      return Array.isArray(requests) ? requests.map((request) => str(record(request)["audience"])).join(",") : "<unset>";
    }),
    boolean("RequiresRepublish", "Whether volumes are re-published periodically.", (object) => flag(spec(object)["requiresRepublish"], false)),
    text("Modes", "The volume lifecycle modes supported.", (object) => list(spec(object)["volumeLifecycleModes"]).map(String).join(",") || "<none>"),
    AGE,
  ],
  CSINode: [NAME, integer("Drivers", "Number of drivers registered on the node.", (object) => list(spec(object)["drivers"]).length), AGE],
  VolumeAttachment: [
    NAME,
    { name: "Attacher", type: "string", format: "name", description: "The driver that attaches the volume.", cell: (object) => str(spec(object)["attacher"]) },
    text("PV", "The persistent volume attached.", (object) => str(record(spec(object)["source"])["persistentVolumeName"])),
    text("Node", "The node it is attached to.", (object) => str(spec(object)["nodeName"])),
    boolean("Attached", "Whether the attach finished.", (object) => record(object["status"])["attached"] === true),
    AGE,
  ],
};
