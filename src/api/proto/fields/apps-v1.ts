import type { ProtoMessages } from "../messages.js";

/** apps/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const APPS_V1: ProtoMessages = {
  "apps.v1.ControllerRevision": "metadata=1:meta.v1.ObjectMeta data=2:runtime.RawExtension revision=3",
  "apps.v1.DaemonSet": "metadata=1:meta.v1.ObjectMeta spec=2:apps.v1.DaemonSetSpec status=3:apps.v1.DaemonSetStatus",
  "apps.v1.DaemonSetCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "apps.v1.DaemonSetSpec":
    "selector=1:meta.v1.LabelSelector template=2:core.v1.PodTemplateSpec updateStrategy=3:apps.v1.DaemonSetUpdateStrategy minReadySeconds=4 revisionHistoryLimit=6",
  "apps.v1.DaemonSetStatus":
    "currentNumberScheduled=1 numberMisscheduled=2 desiredNumberScheduled=3 numberReady=4 observedGeneration=5 updatedNumberScheduled=6 numberAvailable=7 numberUnavailable=8 collisionCount=9 conditions=10:apps.v1.DaemonSetCondition",
  "apps.v1.DaemonSetUpdateStrategy": "type=1 rollingUpdate=2:apps.v1.RollingUpdateDaemonSet",
  "apps.v1.Deployment": "metadata=1:meta.v1.ObjectMeta spec=2:apps.v1.DeploymentSpec status=3:apps.v1.DeploymentStatus",
  "apps.v1.DeploymentCondition": "type=1 status=2 lastUpdateTime=6:meta.v1.Time lastTransitionTime=7:meta.v1.Time reason=4 message=5",
  "apps.v1.DeploymentSpec":
    "replicas=1 selector=2:meta.v1.LabelSelector template=3:core.v1.PodTemplateSpec strategy=4:apps.v1.DeploymentStrategy minReadySeconds=5 revisionHistoryLimit=6 paused=7 progressDeadlineSeconds=9 podReplacementPolicy=10",
  "apps.v1.DeploymentStatus":
    "observedGeneration=1 replicas=2 updatedReplicas=3 readyReplicas=7 availableReplicas=4 unavailableReplicas=5 terminatingReplicas=9 conditions=6:apps.v1.DeploymentCondition collisionCount=8",
  "apps.v1.DeploymentStrategy": "type=1 rollingUpdate=2:apps.v1.RollingUpdateDeployment",
  "apps.v1.ReplicaSet": "metadata=1:meta.v1.ObjectMeta spec=2:apps.v1.ReplicaSetSpec status=3:apps.v1.ReplicaSetStatus",
  "apps.v1.ReplicaSetCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "apps.v1.ReplicaSetSpec": "replicas=1 minReadySeconds=4 selector=2:meta.v1.LabelSelector template=3:core.v1.PodTemplateSpec",
  "apps.v1.ReplicaSetStatus":
    "replicas=1 fullyLabeledReplicas=2 readyReplicas=4 availableReplicas=5 terminatingReplicas=7 observedGeneration=3 conditions=6:apps.v1.ReplicaSetCondition",
  "apps.v1.RollingUpdateDaemonSet": "maxUnavailable=1:intstr.IntOrString maxSurge=2:intstr.IntOrString",
  "apps.v1.RollingUpdateDeployment": "maxUnavailable=1:intstr.IntOrString maxSurge=2:intstr.IntOrString",
  "apps.v1.RollingUpdateStatefulSetStrategy": "partition=1 maxUnavailable=2:intstr.IntOrString",
  "apps.v1.StatefulSet": "metadata=1:meta.v1.ObjectMeta spec=2:apps.v1.StatefulSetSpec status=3:apps.v1.StatefulSetStatus",
  "apps.v1.StatefulSetCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "apps.v1.StatefulSetOrdinals": "start=1",
  "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": "whenDeleted=1 whenScaled=2",
  "apps.v1.StatefulSetSpec":
    "replicas=1 selector=2:meta.v1.LabelSelector template=3:core.v1.PodTemplateSpec volumeClaimTemplates=4:core.v1.PersistentVolumeClaim serviceName=5 podManagementPolicy=6 updateStrategy=7:apps.v1.StatefulSetUpdateStrategy revisionHistoryLimit=8 minReadySeconds=9 persistentVolumeClaimRetentionPolicy=10:apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy ordinals=11:apps.v1.StatefulSetOrdinals",
  "apps.v1.StatefulSetStatus":
    "observedGeneration=1 replicas=2 readyReplicas=3 currentReplicas=4 updatedReplicas=5 currentRevision=6 updateRevision=7 collisionCount=9 conditions=10:apps.v1.StatefulSetCondition availableReplicas=11",
  "apps.v1.StatefulSetUpdateStrategy": "type=1 rollingUpdate=2:apps.v1.RollingUpdateStatefulSetStrategy",
};
