import {
  atomic,
  between,
  bool,
  enumOf,
  int32,
  int64,
  intOrString,
  labelSelector,
  listMap,
  obj,
  ref,
  req,
  str,
  time,
  withDefault,
  type SchemaNode,
} from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** apps/v1: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision. */

const replicas = (): SchemaNode => withDefault(between(int32("Number of desired pods. Defaults to 1."), 0, 2147483647), 1);
const revisionHistoryLimit = (): SchemaNode => withDefault(between(int32("Old revisions to keep for rollback. Defaults to 10."), 0, 2147483647), 10);
const minReadySeconds = (): SchemaNode => between(int32("Seconds a new pod must be ready without crashing to count as available."), 0, 2147483647);
const selector = (): SchemaNode => labelSelector("Label query over pods. Must match the pod template's labels.");
const template = (): SchemaNode => ref("core.v1.PodTemplateSpec", "The pods created from this template.");
const workloadConditions = (id: string): SchemaNode => listMap(ref(id), ["type"], { patch: true });
const condition = (): SchemaNode => obj({ lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) });

export const APPS_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "apps.v1.Deployment": resource("Deployment enables declarative updates for pods and replica sets.", {
    spec: ref("apps.v1.DeploymentSpec", "Desired behavior of the deployment."),
    status: ref("apps.v1.DeploymentStatus", "Most recently observed status of the deployment."),
  }),
  "apps.v1.DeploymentSpec": obj({
    minReadySeconds: minReadySeconds(),
    paused: bool("Whether the deployment is paused."),
    progressDeadlineSeconds: withDefault(int32("Seconds before a stuck deployment is reported failed. Defaults to 600."), 600),
    replicas: replicas(),
    revisionHistoryLimit: revisionHistoryLimit(),
    selector: req(selector()),
    strategy: { ...ref("apps.v1.DeploymentStrategy", "How old pods are replaced by new ones."), patchStrategy: "retainKeys" },
    template: req(template()),
  }),
  "apps.v1.DeploymentStrategy": obj({
    rollingUpdate: obj({
      maxSurge: intOrString("Pods allowed above the desired count during an update. Defaults to 25%."),
      maxUnavailable: intOrString("Pods that may be unavailable during an update. Defaults to 25%."),
    }),
    type: enumOf(["Recreate", "RollingUpdate"], "Type of deployment. Defaults to RollingUpdate."),
  }),
  "apps.v1.DeploymentStatus": obj({
    availableReplicas: int32(),
    collisionCount: int32(),
    conditions: workloadConditions("apps.v1.DeploymentCondition"),
    observedGeneration: int64(),
    readyReplicas: int32(),
    replicas: int32(),
    unavailableReplicas: int32(),
    updatedReplicas: int32(),
  }),
  "apps.v1.DeploymentCondition": obj({
    lastTransitionTime: time(),
    lastUpdateTime: time(),
    message: str(),
    reason: str(),
    status: req(str()),
    type: req(str()),
  }),
  "apps.v1.ReplicaSet": resource("ReplicaSet ensures that a number of pod replicas are running.", {
    spec: obj({ minReadySeconds: minReadySeconds(), replicas: replicas(), selector: req(selector()), template: template() }),
    status: obj({
      availableReplicas: int32(),
      conditions: workloadConditions("apps.v1.ReplicaSetCondition"),
      fullyLabeledReplicas: int32(),
      observedGeneration: int64(),
      readyReplicas: int32(),
      replicas: int32(),
    }),
  }),
  "apps.v1.ReplicaSetCondition": condition(),
  "apps.v1.StatefulSet": resource("StatefulSet runs pods with stable identities and storage.", {
    spec: obj({
      minReadySeconds: minReadySeconds(),
      ordinals: obj({ start: int32() }),
      persistentVolumeClaimRetentionPolicy: obj({
        whenDeleted: withDefault(enumOf(["Delete", "Retain"]), "Retain"),
        whenScaled: withDefault(enumOf(["Delete", "Retain"]), "Retain"),
      }),
      podManagementPolicy: withDefault(enumOf(["OrderedReady", "Parallel"]), "OrderedReady"),
      replicas: replicas(),
      revisionHistoryLimit: revisionHistoryLimit(),
      selector: req(selector()),
      serviceName: str("The governing service of the set."),
      template: req(template()),
      updateStrategy: obj({ rollingUpdate: obj({ maxUnavailable: intOrString(), partition: int32() }), type: enumOf(["OnDelete", "RollingUpdate"]) }),
      volumeClaimTemplates: atomic(ref("core.v1.PersistentVolumeClaim"), "Claims each pod gets."),
    }),
    status: obj({
      availableReplicas: int32(),
      collisionCount: int32(),
      conditions: workloadConditions("apps.v1.StatefulSetCondition"),
      currentReplicas: int32(),
      currentRevision: str(),
      observedGeneration: int64(),
      readyReplicas: int32(),
      replicas: int32(),
      updateRevision: str(),
      updatedReplicas: int32(),
    }),
  }),
  "apps.v1.StatefulSetCondition": condition(),
  "apps.v1.DaemonSet": resource("DaemonSet runs a copy of a pod on each node.", {
    spec: obj({
      minReadySeconds: minReadySeconds(),
      revisionHistoryLimit: revisionHistoryLimit(),
      selector: req(selector()),
      template: req(template()),
      updateStrategy: obj({ rollingUpdate: obj({ maxSurge: intOrString(), maxUnavailable: intOrString() }), type: enumOf(["OnDelete", "RollingUpdate"]) }),
    }),
    status: obj({
      collisionCount: int32(),
      conditions: workloadConditions("apps.v1.DaemonSetCondition"),
      currentNumberScheduled: int32(),
      desiredNumberScheduled: int32(),
      numberAvailable: int32(),
      numberMisscheduled: int32(),
      numberReady: int32(),
      numberUnavailable: int32(),
      observedGeneration: int64(),
      updatedNumberScheduled: int32(),
    }),
  }),
  "apps.v1.DaemonSetCondition": condition(),
  "apps.v1.ControllerRevision": resource("ControllerRevision is an immutable snapshot of state data.", {
    data: ref("runtime.RawExtension", "The serialized state."),
    revision: req(int64("The revision of the state.")),
  }),
};

export const APPS_KINDS: readonly KindDeclaration[] = kindsOf(
  "apps",
  {},
  { v1: ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"] },
);
