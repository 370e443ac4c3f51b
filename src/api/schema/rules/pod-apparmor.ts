import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { childPath, forbidden, indexPath, invalidValue, keyPath } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube 1.30's deprecated per-container AppArmor annotation and its bridge to the
 * `securityContext.appArmorProfile` fields: the values `runtime/default`, `unconfined` and
 * `localhost/<profile>` stand for the types RuntimeDefault, Unconfined and Localhost (with
 * `localhostProfile`). The annotation's domain is the profile's key domain.
 */

/** `container.apparmor.security.beta.<keyDomain>/`, followed by a container's name. */
export function appArmorAnnotationPrefix(keyDomain: string): string {
  return `container.apparmor.security.beta.${keyDomain}/`;
}

const RUNTIME_DEFAULT = "runtime/default";
const UNCONFINED = "unconfined";
const LOCALHOST_PREFIX = "localhost/";
/** kube's maxLocalhostProfileLength (PATH_MAX - 1). */
const MAX_LOCALHOST_PROFILE = 4095;

/** The container lists kube visits (VisitContainers), in its order. */
export const POD_CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/**
 * kube's appArmorAnnotationForField: a profile's annotation value; "" for a Localhost profile
 * without `localhostProfile` or a type kube does not know (nothing is written then).
 */
export function appArmorAnnotationForProfile(profile: Record<string, unknown>): string {
  const local = profile["localhostProfile"];
  switch (profile["type"]) {
    case "Unconfined":
      return UNCONFINED;
    case "RuntimeDefault":
      return RUNTIME_DEFAULT;
    case "Localhost":
      return typeof local === "string" ? `${LOCALHOST_PREFIX}${local}` : "";
    default:
      return "";
  }
}

/**
 * kube's apparmorFieldForAnnotation followed by ValidateAppArmorProfileField: the profile an
 * annotation value stands for, or undefined when it stands for none (an unknown value, `localhost/`
 * with no name) or for one the field's validation would refuse (a padded or over-long name).
 */
export function appArmorProfileForAnnotation(value: string): Record<string, unknown> | undefined {
  if (value === UNCONFINED) return { type: "Unconfined" };
  if (value === RUNTIME_DEFAULT) return { type: "RuntimeDefault" };
  if (!value.startsWith(LOCALHOST_PREFIX)) return undefined;
  const local = value.slice(LOCALHOST_PREFIX.length);
  if (local === "" || local.trim() !== local || Buffer.byteLength(local) > MAX_LOCALHOST_PROFILE) return undefined;
  return { type: "Localhost", localhostProfile: local };
}

/** Whether a pod is a Windows pod (`spec.os.name: windows`), which kube leaves out of the AppArmor rules. */
export function isWindowsPod(spec: unknown): boolean {
  return stringAt(recordAt(spec, "os"), "name") === "windows";
}

/**
 * kube's validateAppArmorAnnotationsAndFieldsMatchOnCreate, part of ValidatePodCreate: for every
 * container with an annotation and a profile (its own, else the pod's), the two must say the same:
 * `…appArmorProfile.type: Forbidden: apparmor type in annotation and field must match`, or for a
 * Localhost profile of another name `…appArmorProfile.localhostProfile: Forbidden: apparmor
 * profile in annotation and field must match`. Runs after the create's sync (a pod's annotations
 * without fields have become fields by then), so it refuses only a client's own contradiction.
 */
export function appArmorMatchErrors(pod: ApiObject, keyDomain: string): FieldError[] {
  const spec = recordAt(pod, "spec");
  if (spec === undefined || isWindowsPod(spec)) return [];
  const annotations = pod.metadata.annotations ?? {};
  const prefix = appArmorAnnotationPrefix(keyDomain);
  const podProfile = recordAt(recordAt(spec, "securityContext"), "appArmorProfile");
  const errors: FieldError[] = [];
  for (const list of POD_CONTAINER_LISTS) {
    listAt(spec, list).forEach((container, index) => {
      if (!isPlainObject(container)) return;
      const profile = recordAt(recordAt(container, "securityContext"), "appArmorProfile") ?? podProfile;
      if (profile === undefined) return;
      const annotation = annotations[`${prefix}${stringAt(container, "name") ?? ""}`];
      if (annotation === undefined) return;
      const path = childPath(childPath(indexPath(childPath("spec", list), index), "securityContext"), "appArmorProfile");
      const error = mismatch(annotation, profile, path);
      if (error !== undefined) errors.push(error);
    });
  }
  return errors;
}

function mismatch(annotation: string, profile: Record<string, unknown>, path: string): FieldError | undefined {
  const typeError = forbidden(childPath(path, "type"), "apparmor type in annotation and field must match");
  switch (profile["type"]) {
    case "Unconfined":
      return annotation === UNCONFINED ? undefined : typeError;
    case "RuntimeDefault":
      return annotation === RUNTIME_DEFAULT ? undefined : typeError;
    case "Localhost": {
      if (!annotation.startsWith(LOCALHOST_PREFIX)) return typeError;
      const local = profile["localhostProfile"];
      if (typeof local === "string" && annotation.slice(LOCALHOST_PREFIX.length) === local) return undefined;
      return forbidden(childPath(path, "localhostProfile"), "apparmor profile in annotation and field must match");
    }
    default:
      return undefined;
  }
}

/**
 * kube's ValidateAppArmorPodAnnotations (part of ValidatePodSpecificAnnotations, run on a pod's
 * create and update and on every pod template): every `container.apparmor.security.beta.<keyDomain>/<name>`
 * annotation must name an init, regular or ephemeral container of `spec` (`Invalid value: "<name>":
 * container not found`), and its value must be empty, `runtime/default`, `unconfined` or start
 * with `localhost/` (`Invalid value: "<value>": invalid AppArmor profile name: "<value>"`), both at
 * `<path>[<key>]` (a pod's `metadata.annotations`, a template's `spec.template.annotations`).
 * Unlike the match check, Windows pods are not exempt.
 */
export function appArmorAnnotationErrors(
  annotations: Readonly<Record<string, string>>,
  spec: Record<string, unknown> | undefined,
  path: string,
  keyDomain: string,
): FieldError[] {
  const prefix = appArmorAnnotationPrefix(keyDomain);
  const names = new Set(POD_CONTAINER_LISTS.flatMap((list) => listAt(spec, list).map((container) => stringAt(container, "name") ?? "")));
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.startsWith(prefix)) continue;
    const at = keyPath(path, key);
    const name = key.slice(prefix.length);
    if (!names.has(name)) errors.push(invalidValue(at, name, "container not found"));
    if (!isAppArmorAnnotationValue(value)) errors.push(invalidValue(at, value, `invalid AppArmor profile name: ${JSON.stringify(value)}`));
  }
  return errors;
}

/** kube's ValidateAppArmorProfileFormat: "", the two fixed values, or any `localhost/…` (even an empty name). */
function isAppArmorAnnotationValue(value: string): boolean {
  return value === "" || value === RUNTIME_DEFAULT || value === UNCONFINED || value.startsWith(LOCALHOST_PREFIX);
}
