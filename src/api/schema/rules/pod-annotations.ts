import type { FieldError } from "../../errors.js";
import { childPath, forbidden, invalidValue, keyPath } from "../field-path.js";
import type { DefinitionValidator } from "../validate.js";
import { appArmorAnnotationErrors } from "./pod-apparmor.js";
import { seccompMatchErrors } from "./pod-seccomp.js";
import { localDescendingPathErrors } from "./pod-spec.js";
import { mirrorPodAnnotation } from "./pods.js";
import { listAt, recordAt, stringAt, stringMapAt } from "./values.js";

/** `controller.<keyDomain>/pod-deletion-cost`: which pods a ReplicaSet removes first when it scales down. */
export function podDeletionCostAnnotation(keyDomain: string): string {
  return `controller.${keyDomain}/pod-deletion-cost`;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * kube's GetDeletionCostFromPodAnnotations: absent, or a decimal int32 whose first character is
 * `-`, a digit 1–9, or `0` alone (no `+`, no leading zeros — after a `-` Go's ParseInt takes them).
 */
export function validDeletionCost(value: string | undefined): boolean {
  if (value === undefined) return true;
  if (!/^(0|[1-9][0-9]*|-[0-9]+)$/.test(value)) return false;
  const number = Number(value);
  return number >= INT32_MIN && number <= INT32_MAX;
}

/** kube's ValidateSeccompProfile of an annotation value: the two fixed values, `docker/default`, or a relative `localhost/…` path. */
function seccompAnnotationErrors(value: string, path: string): FieldError[] {
  if (value === "runtime/default" || value === "docker/default" || value === "unconfined") return [];
  if (value.startsWith("localhost/")) return localDescendingPathErrors(value.slice("localhost/".length), path);
  return [invalidValue(path, value, "must be a valid seccomp profile")];
}

export interface PodAnnotationOptions {
  /** kube's AllowInvalidPodDeletionCost: an update of a pod whose stored cost was already invalid keeps it. */
  readonly allowInvalidDeletionCost?: boolean;
}

/**
 * kube's ValidatePodSpecificAnnotations, run on a pod's create and update and on every pod
 * template: the mirror-pod annotation needs `spec.nodeName` (`Invalid value: "<value>": must set
 * spec.nodeName if mirror pod annotation is set`); `controller.<keyDomain>/pod-deletion-cost` must
 * be a canonical int32 (`must be a 32bit integer`); the deprecated seccomp annotations' values must
 * be profiles (`must be a valid seccomp profile`; kube names them as a child, `<path>.<key>`, not
 * `<path>[<key>]`); and the AppArmor annotations' container names and values
 * (`appArmorAnnotationErrors`). `path` is the annotations' (`metadata.annotations` of a pod, kube's
 * `spec.template.annotations` of a template). kube's deprecated `scheduler.alpha…/tolerations`
 * annotation is not checked here.
 */
export function podSpecificAnnotationErrors(
  annotations: Readonly<Record<string, string>>,
  spec: Record<string, unknown> | undefined,
  path: string,
  keyDomain: string,
  options: PodAnnotationOptions = {},
): FieldError[] {
  const errors: FieldError[] = [];
  const mirror = annotations[mirrorPodAnnotation(keyDomain)];
  if (mirror !== undefined && (stringAt(spec, "nodeName") ?? "") === "")
    errors.push(invalidValue(keyPath(path, mirrorPodAnnotation(keyDomain)), mirror, "must set spec.nodeName if mirror pod annotation is set"));
  const costKey = podDeletionCostAnnotation(keyDomain);
  if (options.allowInvalidDeletionCost !== true && !validDeletionCost(annotations[costKey]))
    errors.push(invalidValue(keyPath(path, costKey), annotations[costKey], "must be a 32bit integer"));
  const podSeccomp = `seccomp.security.alpha.${keyDomain}/pod`;
  const containerSeccomp = `container.seccomp.security.alpha.${keyDomain}/`;
  for (const [key, value] of Object.entries(annotations))
    if (key === podSeccomp || key.startsWith(containerSeccomp)) errors.push(...seccompAnnotationErrors(value, childPath(path, key)));
  errors.push(...appArmorAnnotationErrors(annotations, spec, path, keyDomain));
  return errors;
}

/**
 * kube's ValidatePodTemplateSpec beyond the pod spec's own rules (the PodSpec validator runs at
 * `<path>.spec`): ValidatePodSpecificAnnotations at `<path>.annotations` (kube's path leaves out
 * `metadata`), the seccomp annotation/field match check, and no ephemeral containers. Run wherever
 * a template occurs (Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs,
 * ReplicationControllers, PodTemplates), on create and update; the profile's key domain comes
 * from the walk's context (none: nothing to check by annotation).
 */
export const validatePodTemplateSpec: DefinitionValidator = (template, path, context) => {
  const spec = recordAt(template, "spec");
  const specPath = childPath(path, "spec");
  const errors: FieldError[] = [];
  const keyDomain = context.keyDomain;
  if (keyDomain !== undefined) {
    const annotations = stringMapAt(recordAt(template, "metadata"), "annotations");
    errors.push(...podSpecificAnnotationErrors(annotations, spec, childPath(path, "annotations"), keyDomain));
    errors.push(...seccompMatchErrors(annotations, spec, specPath, keyDomain));
  }
  if (listAt(spec, "ephemeralContainers").length > 0)
    errors.push(forbidden(childPath(specPath, "ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  return errors;
};
