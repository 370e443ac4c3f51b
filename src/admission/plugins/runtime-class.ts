import { apiGroup } from "../../api/profile.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { isPod, listOf, recordOf, specOf, stringOf } from "./pod-spec.js";

/**
 * RuntimeClass: a new pod naming a `runtimeClassName` gets the class's `overhead.podFixed` as
 * `spec.overhead` and its `scheduling` (nodeSelector merged, tolerations appended). A missing class,
 * an overhead the pod sets differently, or a conflicting node selector refuse the pod.
 */
export function runtimeClass(context: PluginContext): AdmissionPlugin {
  const classes = { group: apiGroup(context.profile, "node"), version: "v1", plural: "runtimeclasses" };
  return {
    name: "RuntimeClass",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE",
    // Synchronous for a pod without a runtimeClassName (no promise made).
    mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      const spec = specOf(pod);
      const name = stringOf(spec["runtimeClassName"]);
      if (name === "") return;
      return withClass(attributes, spec, name);
    },
  };

  async function withClass(attributes: AdmissionAttributes, spec: Record<string, unknown>, name: string): Promise<void> {
    const found = await context.client.get(classes, "", name);
    if (found === undefined) throw denied(attributes, `pod rejected: RuntimeClass "${name}" not found`);
    const overhead = recordOf(found["overhead"])["podFixed"];
    if (overhead !== undefined) {
      if (spec["overhead"] !== undefined && canonicalJson(spec["overhead"]) !== canonicalJson(overhead)) {
        throw denied(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec["overhead"] = overhead;
    }
    const scheduling = recordOf(found["scheduling"]);
    const selector = recordOf(scheduling["nodeSelector"]);
    const podSelector = { ...recordOf(spec["nodeSelector"]) };
    for (const [key, value] of Object.entries(selector)) {
      if (podSelector[key] !== undefined && podSelector[key] !== value)
        throw denied(attributes, "pod rejected: conflict in nodeSelector with RuntimeClass's scheduling");
      podSelector[key] = value;
    }
    if (Object.keys(podSelector).length > 0) spec["nodeSelector"] = podSelector;
    const tolerations = listOf(scheduling["tolerations"]);
    if (tolerations.length > 0) {
      const existing = listOf(spec["tolerations"]);
      const seen = new Set(existing.map(canonicalJson));
      spec["tolerations"] = [...existing, ...tolerations.filter((toleration) => !seen.has(canonicalJson(toleration)))];
    }
  }
}
