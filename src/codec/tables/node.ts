import type { ApiObject } from "../../api/object.js";
import { text, wide, AGE, NAME, type CellContext, type ColumnSpec } from "./column.js";
import { condition, record, records, str } from "./format.js";

const nodeInfo = (node: ApiObject): Record<string, unknown> => record(record(node["status"])["nodeInfo"]);

/** Ready, NotReady or Unknown from the Ready condition, with `SchedulingDisabled` for a cordoned node. */
function nodeStatus(node: ApiObject): string {
  const ready = condition(record(node["status"])["conditions"], "Ready");
  const state = ready === undefined ? "Unknown" : ready["status"] === "True" ? "Ready" : "NotReady";
  return record(node["spec"])["unschedulable"] === true ? `${state},SchedulingDisabled` : state;
}

/** Roles from `node-role.<keyDomain>/<role>` label keys and the `<keyDomain>/role` label's value, sorted. */
function nodeRoles(node: ApiObject, context: CellContext): string {
  const rolePrefix = `node-role.${context.keyDomain}/`;
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(rolePrefix) && key.length > rolePrefix.length) roles.add(key.slice(rolePrefix.length));
    else if (key === `${context.keyDomain}/role` && value !== "") roles.add(value);
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

function address(node: ApiObject, type: string): string {
  return str(records(record(node["status"])["addresses"]).find((entry) => entry["type"] === type)?.["address"]) || "<none>";
}

export const NODE_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  text("Status", "Whether the node is ready and schedulable.", nodeStatus),
  text("Roles", "The node's roles, from its labels.", nodeRoles),
  AGE,
  text("Version", "The kubelet's version.", (node) => str(nodeInfo(node)["kubeletVersion"])),
  wide(text("Internal-IP", "The node's first internal address.", (node) => address(node, "InternalIP"))),
  wide(text("External-IP", "The node's first external address.", (node) => address(node, "ExternalIP"))),
  wide(text("OS-Image", "The operating system image.", (node) => str(nodeInfo(node)["osImage"]) || "<unknown>")),
  wide(text("Kernel-Version", "The kernel version.", (node) => str(nodeInfo(node)["kernelVersion"]) || "<unknown>")),
  wide(text("Container-Runtime", "The container runtime and its version.", (node) => str(nodeInfo(node)["containerRuntimeVersion"]) || "<unknown>")),
];
