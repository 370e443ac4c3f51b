import { apiGroup } from "../../api/profile.js";
import { quantityValue } from "../../api/quantity.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { isPod, listOf, recordOf, specOf, stringOf } from "./pod-spec.js";
import { mergeTolerations } from "./tolerations.js";

/** Two resource lists with the same names and equal amounts (kube's semantic equality: `1` equals `1000m`). */
function sameResources(a: unknown, b: unknown): boolean {
  const left = recordOf(a);
  const right = recordOf(b);
  const names = Object.keys(left);
  if (names.length !== Object.keys(right).length) return false;
  return names.every((name) => name in right && quantityValue(left[name]) === quantityValue(right[name]));
}

/**
 * RuntimeClass: a new pod naming a `runtimeClassName` gets the class's `overhead.podFixed` as
 * `spec.overhead` and its `scheduling` (nodeSelector merged, tolerations appended). A missing class,
 * an overhead the pod sets differently, or a conflicting node selector refuse the pod; a pod
 * whose overhead is not its class's (or that sets one without a class defining it) is refused at
 * validation.
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
    // Synchronous for a pod without an overhead (no promise made): kube's validateOverhead.
    validate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      const spec = specOf(pod);
      if (Object.keys(recordOf(spec["overhead"])).length === 0) return;
      return checkOverhead(attributes, spec);
    },
  };

  /** The pod's overhead must be its RuntimeClass's, as set by mutate (a later mutation may have changed it), and needs one. */
  async function checkOverhead(attributes: AdmissionAttributes, spec: Record<string, unknown>): Promise<void> {
    const name = stringOf(spec["runtimeClassName"]);
    const found = name === "" ? undefined : await context.client.get(classes, "", name);
    if (name !== "" && found === undefined) throw denied(attributes, `pod rejected: RuntimeClass "${name}" not found`);
    const overhead = found === undefined ? undefined : recordOf(found["overhead"])["podFixed"];
    if (overhead === undefined) throw denied(attributes, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
    if (!sameResources(overhead, spec["overhead"])) throw denied(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  }

  async function withClass(attributes: AdmissionAttributes, spec: Record<string, unknown>, name: string): Promise<void> {
    const found = await context.client.get(classes, "", name);
    if (found === undefined) throw denied(attributes, `pod rejected: RuntimeClass "${name}" not found`);
    const overhead = recordOf(found["overhead"])["podFixed"];
    if (overhead !== undefined) {
      if (Object.keys(recordOf(spec["overhead"])).length > 0 && !sameResources(overhead, spec["overhead"])) {
        throw denied(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec["overhead"] = overhead;
    }
    const scheduling = recordOf(found["scheduling"]);
    const selector = recordOf(scheduling["nodeSelector"]);
    const podSelector = { ...recordOf(spec["nodeSelector"]) };
    for (const [key, value] of Object.entries(selector)) {
      if (podSelector[key] !== undefined && podSelector[key] !== value)
        throw denied(
          attributes,
          `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podSelector[key])}`,
        );
      podSelector[key] = value;
    }
    if (Object.keys(podSelector).length > 0) spec["nodeSelector"] = podSelector;
    const tolerations = listOf(scheduling["tolerations"]);
    if (tolerations.length > 0) spec["tolerations"] = mergeTolerations(listOf(spec["tolerations"]), tolerations);
  }
}
