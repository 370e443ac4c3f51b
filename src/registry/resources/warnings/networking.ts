import type { Profile } from "../../../api/profile.js";
import { recordOf } from "./fields.js";
import type { KindWarnings } from "./kind-warnings.js";

/**
 * kube 1.30's warnings for networking kinds: an Ingress created with the class annotation
 * (`spec.ingressClassName` replaced it; kube warns on create only), and a Service with the
 * topology-aware-hints annotation (replaced by topology-mode; create and update).
 */
export function networkingWarnings(profile: Profile): Readonly<Record<string, KindWarnings>> {
  const ingressClass = `${profile.keyDomain}/ingress.class`;
  const topologyHints = `service.${profile.keyDomain}/topology-aware-hints`;
  const topologyMode = `service.${profile.keyDomain}/topology-mode`;
  const annotations = (object: unknown): Record<string, unknown> => recordOf(recordOf(object, "metadata"), "annotations") ?? {};
  const service = (object: unknown): string[] =>
    Object.hasOwn(annotations(object), topologyHints) ? [`annotation ${topologyHints} is deprecated, please use ${topologyMode} instead`] : [];
  return {
    Ingress: {
      onCreate: (object) =>
        Object.hasOwn(annotations(object), ingressClass) ? [`annotation "${ingressClass}" is deprecated, please use 'spec.ingressClassName' instead`] : [],
    },
    Service: { onCreate: service, onUpdate: service },
  };
}
