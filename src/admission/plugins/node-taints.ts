import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { isExtendedResource, listOf, recordOf, stringOf } from "./pod-spec.js";

/**
 * TaintNodesByCondition: a new Node gets the `node.<keyDomain>/not-ready:NoSchedule` taint (its
 * conditions are not known yet; the node lifecycle controller removes it once the node is Ready).
 */
export function taintNodesByCondition(context: PluginContext): AdmissionPlugin {
  const key = `${context.names.nodeTaintPrefix}not-ready`;
  return {
    name: "TaintNodesByCondition",
    resources: new Set(["nodes"]),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const node = attributes.object;
      if (node === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const spec = recordOf(node["spec"]);
      const taints = listOf(spec["taints"]);
      if (taints.some((taint) => stringOf(taint["key"]) === key && stringOf(taint["effect"]) === "NoSchedule")) return;
      node["spec"] = { ...spec, taints: [...taints, { key, effect: "NoSchedule" }] };
    },
  };
}

/**
 * ExtendedResourceToleration: a new pod requesting extended resources (names with a domain outside
 * `<keyDomain>`) tolerates the `NoSchedule` taints named after them, as nodes offering them are tainted so.
 */
export function extendedResourceToleration(context: PluginContext): AdmissionPlugin {
  return {
    name: "ExtendedResourceToleration",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || attributes.resource.group !== "" || attributes.subresource !== "") return;
      const spec = recordOf(pod["spec"]);
      const names = new Set<string>();
      for (const list of ["initContainers", "containers"]) {
        for (const container of listOf(spec[list])) {
          const resources = recordOf(container["resources"]);
          for (const field of ["requests", "limits"])
            for (const name of Object.keys(recordOf(resources[field]))) if (isExtendedResource(name, context.names.keyDomain)) names.add(name);
        }
      }
      if (names.size === 0) return;
      const tolerations = listOf(spec["tolerations"]);
      const added = [...tolerations];
      for (const name of [...names].sort()) {
        if (tolerations.some((toleration) => toleration["key"] === name && toleration["operator"] === "Exists" && toleration["effect"] === "NoSchedule"))
          continue;
        added.push({ key: name, operator: "Exists", effect: "NoSchedule" });
      }
      pod["spec"] = { ...spec, tolerations: added };
    },
  };
}
