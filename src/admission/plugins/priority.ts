import { apiGroup } from "../../api/profile.js";
import type { ApiObject } from "../../api/object.js";
import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { isPod, specOf, stringOf } from "./pod-spec.js";
import { resourceReader } from "./reads.js";

/** The two built-in classes (created at first start; the plugin knows them even before). */
export const SYSTEM_PRIORITY_CLASSES: readonly { readonly name: string; readonly value: number; readonly description: string }[] = [
  { name: "system-node-critical", value: 2000001000, description: "Used for system critical pods that must not be moved from their current node." },
  {
    name: "system-cluster-critical",
    value: 2000000000,
    description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
  },
];

const DEFAULT_PREEMPTION = "PreemptLowerPriority";

/**
 * Priority: a new pod's `priorityClassName` resolves to `spec.priority` and `preemptionPolicy`
 * (a missing class is 403); without one, the `globalDefault` class applies (or priority 0). A pod
 * that sets `priority` to another value than its class gives is refused. A second globalDefault
 * PriorityClass is refused.
 */
export function priority(context: PluginContext): AdmissionPlugin {
  const classes = resourceReader(context, { group: apiGroup(context.profile, "scheduling"), version: "v1", plural: "priorityclasses" });
  function systemClass(name: string): ApiObject | undefined {
    const system = SYSTEM_PRIORITY_CLASSES.find((candidate) => candidate.name === name);
    return system === undefined ? undefined : { apiVersion: "", kind: "PriorityClass", metadata: { name }, value: system.value };
  }
  async function findClass(name: string): Promise<ApiObject | undefined> {
    return (await classes.get("", name)) ?? systemClass(name);
  }
  // The lister keeps one list until a class changes: its default is found once per list.
  const defaults = new WeakMap<readonly ApiObject[], ApiObject | null>();
  function defaultIn(all: readonly ApiObject[], except?: string): ApiObject | undefined {
    const pick = (): ApiObject | undefined =>
      all.filter((item) => item["globalDefault"] === true && item.metadata.name !== except).sort((a, b) => Number(a["value"]) - Number(b["value"]))[0];
    if (except !== undefined) return pick();
    let found = defaults.get(all);
    if (found === undefined) {
      found = pick() ?? null;
      defaults.set(all, found);
    }
    return found ?? undefined;
  }
  async function globalDefault(except?: string): Promise<ApiObject | undefined> {
    return defaultIn(await classes.list(""), except);
  }

  /** mutate's work once the class is known: `found` is the named class (undefined: missing) or, without a name, the default (undefined: none). */
  function admitWith(attributes: AdmissionAttributes, spec: Record<string, unknown>, className: string, found: ApiObject | undefined): void {
    let value = 0;
    let preemption = DEFAULT_PREEMPTION;
    if (className === "") {
      if (found !== undefined) {
        spec["priorityClassName"] = found.metadata.name ?? "";
        value = Number(found["value"]);
        preemption = stringOf(found["preemptionPolicy"]) || DEFAULT_PREEMPTION;
      }
    } else {
      if (found === undefined) throw denied(attributes, `no PriorityClass with name ${className} was found`);
      value = Number(found["value"]);
      preemption = stringOf(found["preemptionPolicy"]) || DEFAULT_PREEMPTION;
    }
    if (typeof spec["priority"] === "number" && spec["priority"] !== value) {
      throw denied(
        attributes,
        `the integer value of priority (${spec["priority"]}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
      );
    }
    spec["priority"] = value;
    // kube computes the policy too (the class's, or PreemptLowerPriority without one) and refuses another.
    if (spec["preemptionPolicy"] !== undefined && spec["preemptionPolicy"] !== preemption) {
      throw denied(
        attributes,
        `the string value of PreemptionPolicy (${String(spec["preemptionPolicy"])}) must not be provided in pod spec; priority admission controller computed ${preemption} from the given PriorityClass name`,
      );
    }
    spec["preemptionPolicy"] = preemption;
  }

  return {
    name: "Priority",
    resources: new Set(["pods", "priorityclasses"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    // Synchronous when the cache answers at once (the classes' list needs no wait, a named class is cached).
    mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || attributes.operation !== "CREATE" || !isPod(attributes)) return;
      const spec = specOf(pod);
      const className = stringOf(spec["priorityClassName"]);
      if (className === "") {
        const all = classes.listNow("");
        if (all !== undefined) return admitWith(attributes, spec, className, defaultIn(all));
        return globalDefault().then((fallback) => admitWith(attributes, spec, className, fallback));
      }
      const cached = classes.getNow("", className);
      if (cached !== undefined) return admitWith(attributes, spec, className, cached);
      return findClass(className).then((found) => admitWith(attributes, spec, className, found));
    },
    validate(attributes) {
      const object = attributes.object;
      if (object === undefined || attributes.resource.resource !== "priorityclasses" || object["globalDefault"] !== true) return;
      return globalDefault(object.metadata.name).then((existing) => {
        if (existing !== undefined) {
          throw denied(attributes, `PriorityClass ${existing.metadata.name ?? ""} is already marked as default. Only one default can exist`);
        }
      });
    },
  };
}
