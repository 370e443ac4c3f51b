import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { Strategy } from "../../definition.js";

/** kube 1.30's `NodeSystemInfo` fields: strings whose JSON tags have no `omitempty`. */
const NODE_INFO_FIELDS = [
  "machineID",
  "systemUUID",
  "bootID",
  "kernelVersion",
  "osImage",
  "containerRuntimeVersion",
  "kubeletVersion",
  "kubeProxyVersion",
  "operatingSystem",
  "architecture",
] as const;

/**
 * A Node's status as kube writes it: `daemonEndpoints` and `nodeInfo` are value structs, so every
 * Node shows them, zero-valued (`kubeletEndpoint: {Port: 0}`, each `nodeInfo` string ""), whatever
 * the writer sent. Typed clients rely on it: the Python client refuses a `nodeInfo` without every
 * field (`Invalid value for architecture, must not be None`), so one node written by a partial
 * client would fail every `list_node()`. Fields already set are kept.
 */
export function fillNodeStatus(object: ApiObject): void {
  // Copies: the status may share parts with the stored object the write started from.
  const status = isPlainObject(object["status"]) ? object["status"] : {};
  const endpoints = isPlainObject(status["daemonEndpoints"]) ? status["daemonEndpoints"] : {};
  const kubelet = isPlainObject(endpoints["kubeletEndpoint"]) ? endpoints["kubeletEndpoint"] : {};
  const info: Record<string, unknown> = isPlainObject(status["nodeInfo"]) ? { ...status["nodeInfo"] } : {};
  for (const field of NODE_INFO_FIELDS) if (typeof info[field] !== "string") info[field] = "";
  object["status"] = {
    ...status,
    daemonEndpoints: { ...endpoints, kubeletEndpoint: { ...kubelet, Port: typeof kubelet["Port"] === "number" ? kubelet["Port"] : 0 } },
    nodeInfo: info,
  };
}

export const NODE_STRATEGY: Partial<Strategy> = {
  prepareForCreate: fillNodeStatus,
  prepareForUpdate: fillNodeStatus,
  prepareForStatusUpdate: fillNodeStatus,
};
