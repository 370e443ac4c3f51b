import type { Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import type { KindWarnings } from "./kind-warnings.js";
import { networkingWarnings } from "./networking.js";
import { nodeWarnings } from "./nodes.js";
import { podWarnings } from "./pod.js";
import { storageWarnings } from "./storage.js";
import { workloadWarnings } from "./workloads.js";

export type { KindWarnings } from "./kind-warnings.js";

/**
 * kube's per-kind warnings (its strategies' `WarningsOnCreate`/`WarningsOnUpdate`), keyed by the
 * group relative to the profile's API domain and the kind: `/Pod`, `apps/Deployment`,
 * `networking/Ingress`. Every served version of a kind gets them (v1beta1 CronJobs too).
 */
export function kindWarnings(profile: Profile): ReadonlyMap<string, KindWarnings> {
  const pods = podWarnings(profile);
  const storage = storageWarnings(profile);
  const workloads = workloadWarnings(profile);
  const networking = networkingWarnings(profile);
  const nodes = nodeWarnings(profile);
  const entries: [string, KindWarnings | undefined][] = [
    ["/Pod", { onCreate: (pod) => pods.pod(pod) }],
    ["/PodTemplate", workloads["PodTemplate"]],
    ["/ReplicationController", workloads["ReplicationController"]],
    ["apps/Deployment", workloads["Deployment"]],
    ["apps/ReplicaSet", workloads["ReplicaSet"]],
    ["apps/DaemonSet", workloads["DaemonSet"]],
    ["apps/StatefulSet", workloads["StatefulSet"]],
    ["batch/Job", workloads["Job"]],
    ["batch/CronJob", workloads["CronJob"]],
    ["/PersistentVolumeClaim", { onCreate: storage.claim, onUpdate: storage.claim }],
    ["/PersistentVolume", { onCreate: storage.volume, onUpdate: storage.volume }],
    ["/Service", networking["Service"]],
    ["networking/Ingress", networking["Ingress"]],
    ["/Node", nodes["Node"]],
    ["node/RuntimeClass", nodes["RuntimeClass"]],
  ];
  return new Map(entries.filter((entry): entry is [string, KindWarnings] => entry[1] !== undefined));
}

/** The definitions with their kind's warnings set on their strategies (`warningsOnCreate`, `warningsOnUpdate`). */
export function withKindWarnings(profile: Profile, definitions: readonly ResourceDefinition[]): ResourceDefinition[] {
  const rules = kindWarnings(profile);
  const suffix = `.${profile.apiDomain}`;
  return definitions.map((definition) => {
    const group = definition.group.endsWith(suffix) ? definition.group.slice(0, -suffix.length) : definition.group;
    const warnings = rules.get(`${group}/${definition.kind}`);
    if (warnings === undefined) return definition;
    return {
      ...definition,
      strategy: {
        ...definition.strategy,
        ...(warnings.onCreate === undefined ? {} : { warningsOnCreate: warnings.onCreate }),
        ...(warnings.onUpdate === undefined ? {} : { warningsOnUpdate: warnings.onUpdate }),
      },
    };
  });
}
