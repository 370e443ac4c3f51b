import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { forbidden, invalidValue, keyPath } from "../field-path.js";
import { appArmorAnnotationPrefix } from "./pod-apparmor.js";
import { listAt, recordAt } from "./values.js";

/**
 * kube's probe defaults (SetDefaults_Probe): the timings a kubelet would otherwise assume. Go sees
 * no difference between an absent count and 0, so 0 is defaulted too (`periodSeconds: 0` reads 10).
 */
const defaultProbe: DefinitionDefaulter = (probe) => {
  for (const [field, value] of [
    ["timeoutSeconds", 1],
    ["periodSeconds", 10],
    ["successThreshold", 1],
    ["failureThreshold", 3],
  ] as const)
    if (probe[field] === undefined || probe[field] === null || probe[field] === 0) probe[field] = value;
};

/** kube's SetDefaults_ObjectFieldSelector: a downward-API field reference is read in v1. */
const defaultObjectFieldSelector: DefinitionDefaulter = (selector) => {
  if (selector["apiVersion"] === undefined || selector["apiVersion"] === null || selector["apiVersion"] === "") selector["apiVersion"] = "v1";
};

/** kube's SetDefaults_HTTPGetAction, for probes and lifecycle hooks alike. */
const defaultHttpGet: DefinitionDefaulter = (action) => {
  if (action["path"] === undefined || action["path"] === "") action["path"] = "/";
  action["scheme"] ??= "HTTP";
};

/**
 * kube's v1 PodSpec conversion: `serviceAccount` is the deprecated alias of `serviceAccountName`.
 * An alias given alone names the account (older manifests set only it); when both are set the new
 * field wins; kube writes the alias back equal to the name (absent while the name is empty).
 */
const defaultServiceAccountAlias: DefinitionDefaulter = (spec) => {
  const alias = spec["serviceAccount"];
  if (
    (spec["serviceAccountName"] === undefined || spec["serviceAccountName"] === null || spec["serviceAccountName"] === "") &&
    typeof alias === "string" &&
    alias !== ""
  )
    spec["serviceAccountName"] = alias;
  syncServiceAccountAlias(spec);
};

/** Sets the deprecated `serviceAccount` to the spec's `serviceAccountName`, as kube's output conversion writes it. */
export function syncServiceAccountAlias(spec: Record<string, unknown>): void {
  const name = spec["serviceAccountName"];
  if (typeof name === "string" && name !== "") spec["serviceAccount"] = name;
  else delete spec["serviceAccount"];
}

export const POD_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "core.v1.PodSpec": defaultServiceAccountAlias,
  "core.v1.Probe": defaultProbe,
  "core.v1.HTTPGetAction": defaultHttpGet,
  "core.v1.ObjectFieldSelector": defaultObjectFieldSelector,
};

/** kube 1.30's wording of the fields a pod update may change (ValidatePodUpdate). */
export const POD_UPDATABLE_FIELDS =
  "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

const MAX_INT32 = 2147483647;

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(canonical(left)) === JSON.stringify(canonical(right));
}

/** Key order does not matter when comparing specs. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical(value[key])]),
    );
  return value;
}

/** Each old toleration must stay, except that its tolerationSeconds may change (kube's ValidateTolerationsInPodUpdate). */
function tolerationErrors(next: unknown[], old: unknown[]): FieldError[] {
  const withoutSeconds = (toleration: unknown): unknown => {
    if (!isPlainObject(toleration)) return toleration;
    const { tolerationSeconds: _seconds, ...rest } = toleration;
    return rest;
  };
  const remaining = next.map(withoutSeconds);
  for (const toleration of old) {
    const index = remaining.findIndex((candidate) => same(candidate, withoutSeconds(toleration)));
    if (index < 0) return [forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")];
    remaining.splice(index, 1);
  }
  return [];
}

/** Scheduling gates may only be removed; while gated, node selectors may only gain entries. */
function schedulingErrors(next: Record<string, unknown>, old: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const oldGates = listAt(old, "schedulingGates").map((gate) => (isPlainObject(gate) ? gate["name"] : gate));
  for (const gate of listAt(next, "schedulingGates")) {
    const name = isPlainObject(gate) ? gate["name"] : gate;
    if (!oldGates.includes(name)) errors.push(forbidden("spec.schedulingGates", `only deletion is allowed, but found new scheduling gate '${String(name)}'`));
  }
  if (oldGates.length > 0) {
    const oldSelector = recordAt(old, "nodeSelector") ?? {};
    const nextSelector = recordAt(next, "nodeSelector") ?? {};
    for (const [key, value] of Object.entries(oldSelector)) {
      if (nextSelector[key] !== value)
        errors.push(invalidValue("spec.nodeSelector", nextSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"));
    }
  }
  return errors;
}

function deadlineErrors(next: unknown, old: unknown): FieldError[] {
  const path = "spec.activeDeadlineSeconds";
  if (typeof next === "number") {
    if (next < 0 || next > MAX_INT32) return [invalidValue(path, next, `must be between 0 and ${MAX_INT32}, inclusive`)];
    if (typeof old === "number" && old < next) return [invalidValue(path, next, "must be less than or equal to previous value")];
    return [];
  }
  return typeof old === "number" ? [invalidValue(path, null, "must not update from a positive integer to nil value")] : [];
}

/**
 * kube's ValidatePodUpdate for a pod's spec: the stored spec with the mutable fields taken from
 * the new one must equal the new spec; anything else is one Forbidden on `spec` in kube's words.
 */
export function validatePodUpdate(pod: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const next = recordAt(pod, "spec") ?? {};
  const before = recordAt(old, "spec") ?? {};
  const errors = [
    ...deadlineErrors(next["activeDeadlineSeconds"], before["activeDeadlineSeconds"]),
    ...tolerationErrors(listAt(next, "tolerations"), listAt(before, "tolerations")),
    ...schedulingErrors(next, before),
  ];
  const mutated: Record<string, unknown> = structuredClone(before);
  for (const list of ["containers", "initContainers"]) {
    const nextList = listAt(next, list);
    const oldList = listAt(mutated, list);
    if (nextList.length !== oldList.length) continue;
    oldList.forEach((container, index) => {
      const given = nextList[index];
      if (isPlainObject(container) && isPlainObject(given) && given["image"] !== undefined) container["image"] = given["image"];
    });
  }
  // The deprecated `serviceAccount` alias is no field of kube's internal spec: it cannot differ there.
  for (const field of ["activeDeadlineSeconds", "tolerations", "schedulingGates", "serviceAccount"]) copyField(mutated, next, field);
  if (listAt(before, "schedulingGates").length > 0) for (const field of ["nodeSelector", "affinity"]) copyField(mutated, next, field);
  const oldGrace = before["terminationGracePeriodSeconds"];
  if (typeof oldGrace === "number" && oldGrace < 0 && next["terminationGracePeriodSeconds"] === 1) mutated["terminationGracePeriodSeconds"] = 1;
  if (!same(mutated, next)) errors.push(forbidden("spec", `pod updates may not change fields other than ${POD_UPDATABLE_FIELDS}`));
  return errors;
}

function copyField(target: Record<string, unknown>, source: Record<string, unknown>, field: string): void {
  if (source[field] === undefined) delete target[field];
  else target[field] = source[field];
}

/**
 * kube's ValidatePodCreate: ephemeral containers are added only through the `ephemeralcontainers`
 * sub-resource of an existing pod, never with the pod.
 */
export function validatePodCreate(pod: ApiObject): FieldError[] {
  const spec = recordAt(pod, "spec") ?? {};
  return listAt(spec, "ephemeralContainers").length > 0 ? [forbidden("spec.ephemeralContainers", "cannot be set on create")] : [];
}

/**
 * kube's ValidatePodEphemeralContainersUpdate, after the whole pod's validation: each stored
 * ephemeral container (matched by name, as a patch may reorder them) must still be there,
 * unchanged. kube ends each message with a newline (and, when changed, its own diff of the two).
 */
export function validateEphemeralContainersUpdate(pod: ApiObject, old: ApiObject): FieldError[] {
  const byName = new Map<unknown, unknown>();
  for (const container of listAt(recordAt(pod, "spec"), "ephemeralContainers")) if (isPlainObject(container)) byName.set(container["name"], container);
  const errors: FieldError[] = [];
  for (const container of listAt(recordAt(old, "spec"), "ephemeralContainers")) {
    if (!isPlainObject(container)) continue;
    const name = container["name"];
    const next = byName.get(name);
    if (next === undefined) errors.push(forbidden("spec.ephemeralContainers", `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!same(container, next))
      errors.push(forbidden("spec.ephemeralContainers", `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return errors;
}

/** The annotation a kubelet puts on a static pod's mirror: `<keyDomain>/config.mirror`. */
export function mirrorPodAnnotation(keyDomain: string): string {
  return `${keyDomain}/config.mirror`;
}

/**
 * kube's ValidatePodSpecificAnnotationUpdates (ValidatePodUpdate): a pod's AppArmor annotations
 * (`container.apparmor.security.beta.<keyDomain>/…`) and its mirror-pod annotation
 * (`<keyDomain>/config.mirror`) are fixed at creation: none may be added, changed or removed,
 * each refused at `metadata.annotations[<key>]`. Removals and changes first, then additions.
 */
export function podAnnotationUpdateErrors(pod: ApiObject, old: ApiObject, keyDomain: string): FieldError[] {
  const next = pod.metadata.annotations ?? {};
  const before = old.metadata.annotations ?? {};
  const appArmor = appArmorAnnotationPrefix(keyDomain);
  const mirror = mirrorPodAnnotation(keyDomain);
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (Object.hasOwn(next, key) && next[key] === value) continue;
    if (key.startsWith(appArmor)) errors.push(forbidden(keyPath("metadata.annotations", key), "may not remove or update AppArmor annotations"));
    if (key === mirror) errors.push(forbidden(keyPath("metadata.annotations", key), "may not remove or update mirror pod annotation"));
  }
  for (const key of Object.keys(next)) {
    if (Object.hasOwn(before, key)) continue;
    if (key.startsWith(appArmor)) errors.push(forbidden(keyPath("metadata.annotations", key), "may not add AppArmor annotations"));
    if (key === mirror) errors.push(forbidden(keyPath("metadata.annotations", key), "may not add mirror pod annotation"));
  }
  return errors;
}
