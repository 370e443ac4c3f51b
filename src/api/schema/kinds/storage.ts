import { atomic, bool, enumOf, int32, int64, listMap, obj, ref, req, set, str, stringMap, strings, time, withDefault, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** storage.<apiDomain>/v1: StorageClass, CSIDriver, CSINode, VolumeAttachment. */

const volumeError = (): SchemaNode => obj({ message: str(), time: time() });

export const STORAGE_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "storage.v1.StorageClass": resource("StorageClass describes the parameters of a class of dynamically provisioned volumes.", {
    allowVolumeExpansion: bool(),
    allowedTopologies: atomic(obj({ matchLabelExpressions: atomic(obj({ key: req(str()), values: req(strings()) })) }, { mapType: "atomic" })),
    mountOptions: strings(),
    parameters: stringMap(),
    provisioner: req(str("The provisioner of volumes of this class.")),
    reclaimPolicy: withDefault(enumOf(["Delete", "Recycle", "Retain"]), "Delete"),
    volumeBindingMode: withDefault(enumOf(["Immediate", "WaitForFirstConsumer"]), "Immediate"),
  }),
  "storage.v1.CSIDriver": resource("CSIDriver captures information about a CSI volume driver deployed on the cluster.", {
    spec: req(
      obj({
        attachRequired: withDefault(bool(), true),
        fsGroupPolicy: withDefault(enumOf(["File", "None", "ReadWriteOnceWithFSType"]), "ReadWriteOnceWithFSType"),
        podInfoOnMount: withDefault(bool(), false),
        requiresRepublish: withDefault(bool(), false),
        seLinuxMount: withDefault(bool(), false),
        storageCapacity: withDefault(bool(), false),
        // kube marks `audience` required in its OpenAPI but accepts it empty or absent: "" means the API server's audiences.
        tokenRequests: atomic(obj({ audience: str(), expirationSeconds: int64() })),
        volumeLifecycleModes: withDefault(set(enumOf(["Ephemeral", "Persistent"])), ["Persistent"]),
      }),
    ),
  }),
  "storage.v1.CSINode": resource("CSINode holds information about the CSI drivers installed on a node.", {
    spec: req(
      obj({
        drivers: listMap(obj({ allocatable: obj({ count: int32() }), name: req(str()), nodeID: req(str()), topologyKeys: strings() }), ["name"], {
          patch: true,
          description: "The CSI drivers on the node; may be empty.",
        }),
      }),
    ),
  }),
  "storage.v1.VolumeAttachment": resource("VolumeAttachment captures the intent to attach a volume to a node.", {
    spec: req(
      obj({
        attacher: req(str()),
        nodeName: req(str()),
        source: req(obj({ inlineVolumeSpec: ref("core.v1.PersistentVolumeSpec"), persistentVolumeName: str() })),
      }),
    ),
    status: obj({ attachError: volumeError(), attached: bool(), attachmentMetadata: stringMap(), detachError: volumeError() }),
  }),
};

export const STORAGE_KINDS: readonly KindDeclaration[] = kindsOf(
  "storage",
  { domain: true },
  { v1: ["StorageClass", "CSIDriver", "CSINode", "VolumeAttachment"] },
);
