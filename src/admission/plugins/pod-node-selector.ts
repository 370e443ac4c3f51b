import { isPlainObject } from "../../api/object.js";
import { AdmissionConfigError, denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { isPod, recordOf, specOf } from "./pod-spec.js";

/** `podNodeSelectorPluginConfig`: `clusterDefaultNodeSelector` and a selector per namespace, as label strings. */
export type PodNodeSelectorConfig = ReadonlyMap<string, string>;

const CLUSTER_DEFAULT = "clusterDefaultNodeSelector";

export function parsePodNodeSelectorConfig(raw: unknown): PodNodeSelectorConfig {
  if (raw === undefined || raw === null) return new Map();
  const block = isPlainObject(raw) ? raw["podNodeSelectorPluginConfig"] : undefined;
  if (!isPlainObject(block))
    throw new AdmissionConfigError(`plugin "PodNodeSelector": podNodeSelectorPluginConfig: required, a map of namespace to node selector`);
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(block)) {
    if (typeof value !== "string")
      throw new AdmissionConfigError(`plugin "PodNodeSelector": podNodeSelectorPluginConfig.${key}: must be a label selector string`);
    parseLabels(value, `podNodeSelectorPluginConfig.${key}`);
    out.set(key, value);
  }
  return out;
}

/** `a=b,c=d` as a map; only equality terms are meaningful for a node selector. */
function parseLabels(text: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const term of text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")) {
    const match = /^([^=!\s]+)\s*==?\s*([^=\s]*)$/.exec(term);
    if (match === null) throw new AdmissionConfigError(`plugin "PodNodeSelector": ${field}: "${term}" is not a key=value term`);
    out[match[1] ?? ""] = match[2] ?? "";
  }
  return out;
}

/**
 * PodNodeSelector: a new pod's `nodeSelector` gets its namespace's selector (annotation
 * `scheduler.alpha.<keyDomain>/node-selector`, else the configuration's entry for the namespace,
 * else `clusterDefaultNodeSelector`); a pod selector that contradicts it is refused.
 */
export function podNodeSelector(context: PluginContext): AdmissionPlugin {
  const config = (context.configuration as PodNodeSelectorConfig | undefined) ?? new Map<string, string>();
  const annotation = context.names.nodeSelectorAnnotation;
  return {
    name: "PodNodeSelector",
    resources: new Set(["pods"]),
    handles: (operation) => operation === "CREATE",
    async mutate(attributes) {
      const pod = attributes.object;
      if (pod === undefined || !isPod(attributes)) return;
      const namespace = await context.client.get({ group: "", version: "v1", plural: "namespaces" }, "", attributes.namespace);
      const text = namespace?.metadata.annotations?.[annotation] ?? config.get(attributes.namespace) ?? config.get(CLUSTER_DEFAULT) ?? "";
      const required = parseLabels(text, annotation);
      if (Object.keys(required).length === 0) return;
      const spec = specOf(pod);
      const selector = { ...recordOf(spec["nodeSelector"]) };
      for (const [key, value] of Object.entries(required)) {
        if (selector[key] !== undefined && selector[key] !== value)
          throw denied(attributes, "pod node label selector conflicts with its namespace node label selector");
        selector[key] = value;
      }
      spec["nodeSelector"] = selector;
    },
  };
}
