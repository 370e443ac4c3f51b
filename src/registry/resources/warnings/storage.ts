import type { Profile } from "../../../api/profile.js";
import { quoted, recordOf, stringOf } from "./fields.js";
import { fractionalBytes } from "./fractional-bytes.js";
import { deprecatedNodeLabels, requiredTermsWarnings } from "./node-labels.js";

/**
 * kube 1.30's warnings for storage: claims (and every claim template: a StatefulSet's
 * `volumeClaimTemplates`, a pod's ephemeral volumes) asking for a fractional number of bytes,
 * the beta storage-class annotation on claims and volumes, the Recycle reclaim policy, and
 * deprecated node labels in a volume's node affinity. Claims and volumes warn on create and on
 * every update, from the new object alone.
 */
export function claimSpecWarnings(spec: unknown, path: string): string[] {
  const warnings: string[] = [];
  const resources = recordOf(spec, "resources");
  for (const kind of ["requests", "limits"] as const) {
    const fraction = fractionalBytes(recordOf(resources, kind)?.["storage"]);
    if (fraction !== undefined) warnings.push(`${path}.resources.${kind}[storage]: fractional byte value ${quoted(fraction)} is invalid, must be an integer`);
  }
  return warnings;
}

export interface StorageWarnings {
  claim(claim: unknown): string[];
  volume(volume: unknown): string[];
}

export function storageWarnings(profile: Profile): StorageWarnings {
  const storageClassAnnotation = `volume.beta.${profile.keyDomain}/storage-class`;
  const labels = deprecatedNodeLabels(profile);
  const annotationWarnings = (object: unknown): string[] => {
    const annotations = recordOf(recordOf(object, "metadata"), "annotations") ?? {};
    return Object.hasOwn(annotations, storageClassAnnotation)
      ? [`metadata.annotations[${storageClassAnnotation}]: deprecated since v1.8; use "storageClassName" attribute instead`]
      : [];
  };
  return {
    claim(claim) {
      return [...annotationWarnings(claim), ...claimSpecWarnings(recordOf(claim, "spec"), "spec")];
    },
    volume(volume) {
      const warnings = annotationWarnings(volume);
      const spec = recordOf(volume, "spec");
      if (stringOf(spec, "persistentVolumeReclaimPolicy") === "Recycle")
        warnings.push(
          "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.",
        );
      const required = recordOf(recordOf(spec, "nodeAffinity"), "required");
      if (required !== undefined) warnings.push(...requiredTermsWarnings(labels, required, "spec.nodeAffinity.required"));
      return warnings;
    },
  };
}
