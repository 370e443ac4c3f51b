import { isPlainObject, type ApiObject } from "../../../api/object.js";
import {
  appArmorAnnotationForProfile,
  appArmorAnnotationPrefix,
  appArmorProfileForAnnotation,
  isWindowsPod,
  POD_CONTAINER_LISTS,
} from "../../../api/schema/rules/pod-apparmor.js";
import { isDeepStrictEqual } from "node:util";

/**
 * kube 1.30's applyAppArmorVersionSkew, run by a pod's create (never by an update): per container
 * (init, regular, ephemeral), in both directions, so kubelets that read only one of the two agree.
 *
 * - No annotation: the container's `securityContext.appArmorProfile`, else the pod's, is written
 *   as the annotation `container.apparmor.security.beta.<keyDomain>/<name>` (a Localhost profile
 *   without a name writes none).
 * - An annotation and no container field: the annotation becomes the container's field, unless it
 *   stands for no valid profile or for the pod's own profile; either way but the last, `warn`
 *   gets kube's deprecation warning for the annotation.
 * - Both: left alone (validation refuses a contradiction).
 *
 * Windows pods are left alone. Mutates `pod` (already the create's own copy); containers and
 * their security contexts are replaced, not changed in place.
 */
export function syncAppArmorOnCreate(pod: ApiObject, keyDomain: string, warn?: (message: string) => void): void {
  const spec = pod["spec"];
  if (!isPlainObject(spec) || isWindowsPod(spec)) return;
  const prefix = appArmorAnnotationPrefix(keyDomain);
  const podContext = spec["securityContext"];
  const podProfile = isPlainObject(podContext) && isPlainObject(podContext["appArmorProfile"]) ? podContext["appArmorProfile"] : undefined;
  for (const list of POD_CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers)) continue;
    const synced = containers.map((container: unknown) => {
      if (!isPlainObject(container)) return container;
      const key = `${prefix}${typeof container["name"] === "string" ? container["name"] : ""}`;
      const context = isPlainObject(container["securityContext"]) ? container["securityContext"] : undefined;
      const ownProfile = context !== undefined && isPlainObject(context["appArmorProfile"]) ? context["appArmorProfile"] : undefined;
      const annotation = pod.metadata.annotations?.[key];
      if (annotation === undefined) {
        const profile = ownProfile ?? podProfile;
        const value = profile === undefined ? "" : appArmorAnnotationForProfile(profile);
        if (value !== "") pod.metadata.annotations = { ...pod.metadata.annotations, [key]: value };
        return container;
      }
      if (ownProfile !== undefined) return container;
      const profile = appArmorProfileForAnnotation(annotation);
      // kube compares with the pod's profile semantically; absent and null localhostProfile read alike.
      const sameAsPod = profile !== undefined && podProfile !== undefined && isDeepStrictEqual(profile, withoutNulls(podProfile));
      if (!sameAsPod) warn?.(`metadata.annotations[${key}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
      if (profile === undefined || sameAsPod) return container;
      return { ...container, securityContext: { ...context, appArmorProfile: profile } };
    });
    // Most pods have neither: their lists are left as they were.
    if (synced.some((container, index) => container !== containers[index])) spec[list] = synced;
  }
}

function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null && value !== undefined));
}
