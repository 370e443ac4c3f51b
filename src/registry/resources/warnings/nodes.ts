import type { ApiObject } from "../../../api/object.js";
import type { Profile } from "../../../api/profile.js";
import { has, recordOf, stringOf } from "./fields.js";
import type { KindWarnings } from "./kind-warnings.js";
import { deprecatedNodeLabels, runtimeClassWarnings } from "./node-labels.js";

/**
 * kube 1.30's warnings for Nodes (the removed dynamic kubelet configuration and the unused
 * `spec.externalID`; kube does not warn on a node's labels) and RuntimeClasses (deprecated
 * labels in `scheduling.nodeSelector`), on create and update, from the new object alone.
 */
export function nodeWarnings(profile: Profile): Readonly<Record<string, KindWarnings>> {
  const labels = deprecatedNodeLabels(profile);
  const node = (object: ApiObject): string[] => {
    const spec = recordOf(object, "spec");
    const warnings: string[] = [];
    if (has(spec, "configSource")) warnings.push("spec.configSource: the feature is removed");
    if ((stringOf(spec, "externalID") ?? "") !== "") warnings.push(`spec.externalID: this field is deprecated, and is unused by ${profile.productName}`);
    return warnings;
  };
  const runtimeClass = (object: ApiObject): string[] => runtimeClassWarnings(labels, object);
  return {
    Node: { onCreate: node, onUpdate: node },
    RuntimeClass: { onCreate: runtimeClass, onUpdate: runtimeClass },
  };
}
