import type { FieldError } from "../../errors.js";
import { isPlainObject } from "../../object.js";
import { childPath, forbidden, indexPath } from "../field-path.js";
import { POD_CONTAINER_LISTS } from "./pod-apparmor.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube's validateSeccompAnnotationsAndFields, part of ValidatePodCreate. The deprecated seccomp
 * annotations (`seccomp.security.alpha.<keyDomain>/pod`, `container.seccomp.security.alpha.<keyDomain>/<name>`)
 * have had no effect since kube 1.27 (no sync either way), but one given beside its
 * `securityContext.seccompProfile` must still say the same: `…seccompProfile.type: Forbidden:
 * seccomp type in annotation and field must match`, or for a Localhost profile of another name
 * `…seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must
 * match`. The pod's annotation is held to the pod's field only, a container's to its own field
 * only (not the pod's, unlike AppArmor's); Windows pods are not exempt. Kube runs it on a pod's
 * create and on every pod template (ValidatePodTemplateSpec); `specPath` is where `spec` sits
 * (`spec`, `spec.template.spec`).
 */
export function seccompMatchErrors(
  annotations: Readonly<Record<string, string>>,
  spec: Record<string, unknown> | undefined,
  specPath: string,
  keyDomain: string,
): FieldError[] {
  if (spec === undefined) return [];
  const errors: FieldError[] = [];
  const podAnnotation = annotations[`seccomp.security.alpha.${keyDomain}/pod`];
  const podProfile = recordAt(recordAt(spec, "securityContext"), "seccompProfile");
  if (podAnnotation !== undefined && podProfile !== undefined) {
    const error = mismatch(podAnnotation, podProfile, childPath(childPath(specPath, "securityContext"), "seccompProfile"));
    if (error !== undefined) errors.push(error);
  }
  const prefix = `container.seccomp.security.alpha.${keyDomain}/`;
  for (const list of POD_CONTAINER_LISTS) {
    listAt(spec, list).forEach((container, index) => {
      if (!isPlainObject(container)) return;
      const profile = recordAt(recordAt(container, "securityContext"), "seccompProfile");
      const annotation = annotations[`${prefix}${stringAt(container, "name") ?? ""}`];
      if (profile === undefined || annotation === undefined) return;
      const path = childPath(childPath(indexPath(childPath(specPath, list), index), "securityContext"), "seccompProfile");
      const error = mismatch(annotation, profile, path);
      if (error !== undefined) errors.push(error);
    });
  }
  return errors;
}

function mismatch(annotation: string, profile: Record<string, unknown>, path: string): FieldError | undefined {
  const typeError = forbidden(childPath(path, "type"), "seccomp type in annotation and field must match");
  switch (profile["type"]) {
    case "Unconfined":
      return annotation === "unconfined" ? undefined : typeError;
    case "RuntimeDefault":
      // docker/default: the older spelling of the runtime's default, still accepted.
      return annotation === "runtime/default" || annotation === "docker/default" ? undefined : typeError;
    case "Localhost": {
      if (!annotation.startsWith("localhost/")) return typeError;
      const local = profile["localhostProfile"];
      if (typeof local === "string" && annotation.slice("localhost/".length) === local) return undefined;
      return forbidden(childPath(path, "localhostProfile"), "seccomp profile in annotation and field must match");
    }
    default:
      return undefined;
  }
}
