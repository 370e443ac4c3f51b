import type { FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import { quantityValue } from "../../../api/quantity.js";
import {
  mirrorPodAnnotation,
  podAnnotationUpdateErrors,
  validateEphemeralContainersUpdate,
  validatePodCreate,
  validatePodUpdate,
} from "../../../api/schema/rules/pods.js";
import { podDeletionCostAnnotation, podSpecificAnnotationErrors, validDeletionCost } from "../../../api/schema/rules/pod-annotations.js";
import { appArmorMatchErrors } from "../../../api/schema/rules/pod-apparmor.js";
import { seccompMatchErrors } from "../../../api/schema/rules/pod-seccomp.js";
import { recordAt } from "../../../api/schema/rules/values.js";
import type { Strategy } from "../../definition.js";
import { bindPod } from "./binding.js";
import { syncAppArmorOnCreate } from "./pod-apparmor.js";

type QosClass = "Guaranteed" | "Burstable" | "BestEffort";

const COMPUTE = ["cpu", "memory"] as const;

function resourcesOf(container: unknown): { requests: Record<string, unknown>; limits: Record<string, unknown> } {
  const resources = isPlainObject(container) && isPlainObject(container["resources"]) ? container["resources"] : {};
  return { requests: isPlainObject(resources["requests"]) ? resources["requests"] : {}, limits: isPlainObject(resources["limits"]) ? resources["limits"] : {} };
}

/**
 * kube's quality-of-service class of a pod, from its containers' and init containers' cpu and
 * memory: none requested or limited is BestEffort; every container limiting both, with requests
 * (when given) equal to the limits, is Guaranteed; anything else Burstable.
 */
export function podQosClass(pod: ApiObject): QosClass {
  const spec = isPlainObject(pod["spec"]) ? pod["spec"] : {};
  const containers = [spec["containers"], spec["initContainers"]].flatMap((list) => (Array.isArray(list) ? list : []));
  let anySet = false;
  let guaranteed = true;
  for (const container of containers) {
    const { requests, limits } = resourcesOf(container);
    for (const name of COMPUTE) {
      const request = quantityValue(requests[name]);
      const limit = quantityValue(limits[name]);
      if ((request ?? 0) !== 0 || (limit ?? 0) !== 0) anySet = true;
      if (limit === undefined || (request !== undefined && request !== limit)) guaranteed = false;
    }
  }
  if (!anySet) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

/**
 * Pods start Pending with their QoS class (the status a client sent is dropped) and their AppArmor
 * annotations and fields in step (`syncAppArmorOnCreate`); a binding writes node and conditions.
 * `keyDomain` spells the mirror-pod annotation (`<keyDomain>/config.mirror`) and the AppArmor one.
 */
export function podStrategy(keyDomain: string): Partial<Strategy> {
  return {
    ...POD_STRATEGY_BASE,
    prepareForCreate(pod, context) {
      pod["status"] = { phase: "Pending", qosClass: podQosClass(pod) };
      // kube's PrepareForCreate only: an update keeps annotations and fields as the client sent them.
      syncAppArmorOnCreate(pod, keyDomain, context.warn);
    },
    // kube's ValidatePodCreate: the annotations' own rules (ValidatePodSpecificAnnotations), then the seccomp and AppArmor match checks.
    validate: (pod) => [
      ...validatePodCreate(pod),
      ...podSpecificAnnotationErrors(pod.metadata.annotations ?? {}, recordAt(pod, "spec"), "metadata.annotations", keyDomain),
      ...seccompMatchErrors(pod.metadata.annotations ?? {}, recordAt(pod, "spec"), "spec", keyDomain),
      ...appArmorMatchErrors(pod, keyDomain),
    ],
    // kube's ValidatePodUpdate: the AppArmor and mirror annotations fixed at creation, then ValidatePodSpecificAnnotations on the new pod
    // (a deletion cost already invalid in the stored pod may stay, kube's AllowInvalidPodDeletionCost).
    validateObjectUpdate: (pod, old) => [
      ...validatePodUpdate(pod, old),
      ...podAnnotationUpdateErrors(pod, old, keyDomain),
      ...podSpecificAnnotationErrors(pod.metadata.annotations ?? {}, recordAt(pod, "spec"), "metadata.annotations", keyDomain, {
        allowInvalidDeletionCost: !validDeletionCost(old.metadata.annotations?.[podDeletionCostAnnotation(keyDomain)]),
      }),
    ],
    validateSubresourceUpdate: (subresource, pod, old) => ephemeralUpdateErrors(subresource, pod, old, keyDomain),
  };
}

/**
 * kube's ValidatePodEphemeralContainersUpdate: a static pod's mirror takes none (kube answers that
 * alone, on the root path it prints as `[]`); otherwise the stored ones stay, unchanged.
 */
function ephemeralUpdateErrors(subresource: string, pod: ApiObject, old: ApiObject, keyDomain: string): FieldError[] {
  if (subresource !== "ephemeralcontainers") return [];
  if (old.metadata.annotations?.[mirrorPodAnnotation(keyDomain)] !== undefined)
    return [{ type: "FieldValueForbidden", field: "[]", message: "Forbidden: static pods do not support ephemeral containers" }];
  return validateEphemeralContainersUpdate(pod, old);
}

const POD_STRATEGY_BASE: Partial<Strategy> = {
  prepareForUpdate(pod, old) {
    // Ephemeral containers change only through their own sub-resource (kube's pod strategy).
    const spec = pod["spec"];
    const before = old["spec"];
    if (!isPlainObject(spec) || !isPlainObject(before)) return;
    if (before["ephemeralContainers"] === undefined) delete spec["ephemeralContainers"];
    else spec["ephemeralContainers"] = before["ephemeralContainers"];
  },
  prepareForStatusUpdate: fillContainerStatuses,
  // Updates have no rules beyond the schema stage's and validateObjectUpdate's (validate is create-only).
  validateUpdate: () => [],
  validateObjectUpdate: validatePodUpdate,
  updateSubresource: (subresource, desired, old) => {
    if (subresource === "binding") return bindPod(desired, old);
    if (subresource === "ephemeralcontainers") return withEphemeralContainers(desired, old);
    return old;
  },
};

/** `pods/{name}/ephemeralcontainers` writes only `spec.ephemeralContainers`; everything else stays as stored. */
function withEphemeralContainers(desired: ApiObject, old: ApiObject): ApiObject {
  const spec = isPlainObject(old["spec"]) ? old["spec"] : {};
  const wanted = isPlainObject(desired["spec"]) ? desired["spec"]["ephemeralContainers"] : undefined;
  const next: Record<string, unknown> = { ...spec };
  if (wanted === undefined) delete next["ephemeralContainers"];
  else next["ephemeralContainers"] = wanted;
  return { ...old, spec: next };
}

/** The container status lists of a pod's status. */
const CONTAINER_STATUS_LISTS = ["initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"] as const;

/** A container state: `{}` when absent; a `terminated` state always has its `exitCode` (kube writes 0; the Python client requires it). */
function containerState(state: unknown): Record<string, unknown> {
  if (!isPlainObject(state)) return {};
  const terminated = state["terminated"];
  if (!isPlainObject(terminated) || typeof terminated["exitCode"] === "number") return state;
  return { ...state, terminated: { ...terminated, exitCode: 0 } };
}

/**
 * kube's `ContainerStatus` fields written even when zero (no `omitempty`, or value structs):
 * `state` and `lastState` `{}` (a `terminated` state's `exitCode` 0), `ready` false,
 * `restartCount` 0, `image` and `imageID` "".
 * Typed clients require them: the Python client refuses a status without `image`, so a status
 * written with part of a container's (`{name, ready}`) broke every read and list of its pod.
 */
function fillContainerStatuses(pod: ApiObject): void {
  const status = pod["status"];
  if (!isPlainObject(status)) return;
  const filled: Record<string, unknown> = { ...status };
  for (const list of CONTAINER_STATUS_LISTS) {
    const statuses = status[list];
    if (!Array.isArray(statuses)) continue;
    // Copies: the lists may be shared with the stored object the write started from.
    filled[list] = statuses.map((entry: unknown) =>
      isPlainObject(entry)
        ? {
            ...entry,
            state: containerState(entry["state"]),
            lastState: containerState(entry["lastState"]),
            ready: typeof entry["ready"] === "boolean" ? entry["ready"] : false,
            restartCount: typeof entry["restartCount"] === "number" ? entry["restartCount"] : 0,
            image: typeof entry["image"] === "string" ? entry["image"] : "",
            imageID: typeof entry["imageID"] === "string" ? entry["imageID"] : "",
          }
        : entry,
    );
  }
  pod["status"] = filled;
}
