import type { ProtoMessages } from "../messages.js";

/** storage/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const STORAGE_V1: ProtoMessages = {
  "storage.v1.CSIDriver": "metadata=1:meta.v1.ObjectMeta spec=2:storage.v1.CSIDriverSpec",
  "storage.v1.CSIDriverSpec":
    "attachRequired=1 podInfoOnMount=2 volumeLifecycleModes=3 storageCapacity=4 fsGroupPolicy=5 tokenRequests=6:storage.v1.TokenRequest requiresRepublish=7 seLinuxMount=8 nodeAllocatableUpdatePeriodSeconds=9 serviceAccountTokenInSecrets=10 preventPodSchedulingIfMissing=11",
  "storage.v1.CSINode": "metadata=1:meta.v1.ObjectMeta spec=2:storage.v1.CSINodeSpec status=3:storage.v1.CSINodeStatus",
  "storage.v1.CSINodeDriver": "name=1 nodeID=2 topologyKeys=3 allocatable=4:storage.v1.VolumeNodeResources",
  "storage.v1.CSINodeSpec": "drivers=1:storage.v1.CSINodeDriver",
  "storage.v1.CSINodeStatus": "storageHealth=1:storage.v1.StorageHealth",
  "storage.v1.StorageClass":
    "metadata=1:meta.v1.ObjectMeta provisioner=2 parameters=3 reclaimPolicy=4 mountOptions=5 allowVolumeExpansion=6 volumeBindingMode=7 allowedTopologies=8:core.v1.TopologySelectorTerm",
  "storage.v1.StorageHealth": "name=1 healthConditions=2:storage.v1.StorageHealthCondition",
  "storage.v1.StorageHealthCondition": "status=1 reason=2 message=3 accessMode=4 volumeMode=5 lastTransitionTime=6:meta.v1.Time",
  "storage.v1.TokenRequest": "audience=1 expirationSeconds=2",
  "storage.v1.VolumeAttachment": "metadata=1:meta.v1.ObjectMeta spec=2:storage.v1.VolumeAttachmentSpec status=3:storage.v1.VolumeAttachmentStatus",
  "storage.v1.VolumeAttachmentSource": "persistentVolumeName=1 inlineVolumeSpec=2:core.v1.PersistentVolumeSpec",
  "storage.v1.VolumeAttachmentSpec": "attacher=1 source=2:storage.v1.VolumeAttachmentSource nodeName=3",
  "storage.v1.VolumeAttachmentStatus": "attached=1 attachmentMetadata=2 attachError=3:storage.v1.VolumeError detachError=4:storage.v1.VolumeError",
  "storage.v1.VolumeError": "time=1:meta.v1.Time message=2 errorCode=3",
  "storage.v1.VolumeNodeResources": "count=1",
};
