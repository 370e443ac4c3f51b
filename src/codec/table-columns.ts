import { fieldValue, isPlainObject, type ApiObject } from "../api/object.js";
import { humanDuration } from "../util/human-duration.js";

/** A Table column and how a row's cell is computed from the object. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly format?: string;
  readonly description: string;
  /** 0: shown by default; 1: only with `-o wide`. */
  readonly priority?: number;
  cell(object: ApiObject, now: number): string | number | boolean;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

const NAME: ColumnSpec = { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", cell: (object) => object.metadata.name ?? "" };
const AGE: ColumnSpec = {
  name: "Age",
  type: "string",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  cell: (object, now) => (object.metadata.creationTimestamp === undefined ? "<unknown>" : humanDuration(now - Date.parse(object.metadata.creationTimestamp))),
};

function count(name: string, path: string, description: string): ColumnSpec {
  return { name, type: "integer", description, cell: (object) => Object.keys(record(fieldValueRaw(object, path))).length };
}

function text(name: string, path: string, description: string, priority = 0): ColumnSpec {
  return { name, type: "string", description, priority, cell: (object) => fieldValue(object, path) || "<none>" };
}

function fieldValueRaw(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split(".")) current = isPlainObject(current) ? current[part] : undefined;
  return current;
}

function podReady(object: ApiObject): string {
  const containers = list(record(object["spec"])["containers"]).length;
  const ready = list(record(object["status"])["containerStatuses"]).filter((status) => record(status)["ready"] === true).length;
  return `${ready}/${containers}`;
}

function podRestarts(object: ApiObject): number {
  return list(record(object["status"])["containerStatuses"]).reduce<number>((total, status) => total + (Number(record(status)["restartCount"]) || 0), 0);
}

function podStatus(object: ApiObject): string {
  if (object.metadata.deletionTimestamp !== undefined) return "Terminating";
  const status = record(object["status"]);
  for (const container of list(status["containerStatuses"])) {
    const waiting = record(record(record(container)["state"])["waiting"]);
    if (typeof waiting["reason"] === "string") return waiting["reason"];
  }
  return typeof status["reason"] === "string" ? status["reason"] : typeof status["phase"] === "string" ? status["phase"] : "Pending";
}

function servicePorts(object: ApiObject): string {
  const ports = list(record(object["spec"])["ports"]).map((port) => {
    const entry = record(port);
    const nodePort = entry["nodePort"] === undefined ? "" : `:${String(entry["nodePort"])}`;
    return `${String(entry["port"] ?? "")}${nodePort}/${String(entry["protocol"] ?? "TCP")}`;
  });
  return ports.length === 0 ? "<none>" : ports.join(",");
}

function nodeStatus(object: ApiObject): string {
  const ready = list(record(object["status"])["conditions"]).map(record).find((condition) => condition["type"] === "Ready");
  const state = ready === undefined ? "Unknown" : ready["status"] === "True" ? "Ready" : "NotReady";
  return record(object["spec"])["unschedulable"] === true ? `${state},SchedulingDisabled` : state;
}

function replicas(object: ApiObject): string {
  return `${Number(record(object["status"])["readyReplicas"]) || 0}/${Number(record(object["spec"])["replicas"] ?? 1)}`;
}

/** Per-kind columns, as kubectl shows them against kube; kinds not listed get Name and Created At. */
export const TABLES: Readonly<Record<string, readonly ColumnSpec[]>> = {
  Pod: [
    NAME,
    { name: "Ready", type: "string", description: "The aggregate readiness state of this pod for accepting traffic.", cell: podReady },
    { name: "Status", type: "string", description: "The aggregate status of the containers in this pod.", cell: podStatus },
    { name: "Restarts", type: "string", description: "The number of times the containers in this pod have been restarted.", cell: (object) => String(podRestarts(object)) },
    AGE,
    text("IP", "status.podIP", "IP address allocated to the pod.", 1),
    text("Node", "spec.nodeName", "Name of the node the pod is bound to.", 1),
  ],
  Namespace: [NAME, text("Status", "status.phase", "The status of the namespace"), AGE],
  ConfigMap: [NAME, { name: "Data", type: "integer", description: "Number of data entries.", cell: (object) => Object.keys(record(object["data"])).length + Object.keys(record(object["binaryData"])).length }, AGE],
  Secret: [NAME, text("Type", "type", "The type of secret"), count("Data", "data", "Number of data entries."), AGE],
  ServiceAccount: [NAME, AGE],
  Service: [
    NAME,
    { name: "Type", type: "string", description: "The type of the service.", cell: (object) => fieldValue(object, "spec.type") || "ClusterIP" },
    text("Cluster-IP", "spec.clusterIP", "The cluster IP of the service."),
    { name: "External-IP", type: "string", description: "External IPs of the service.", cell: (object) => list(record(object["spec"])["externalIPs"]).join(",") || "<none>" },
    { name: "Port(s)", type: "string", description: "The ports of the service.", cell: servicePorts },
    AGE,
  ],
  Node: [NAME, { name: "Status", type: "string", description: "The status of the node.", cell: nodeStatus }, { name: "Roles", type: "string", description: "The roles of the node.", cell: () => "<none>" }, AGE, text("Version", "status.nodeInfo.kubeletVersion", "Kubelet version.")],
  Deployment: [
    NAME,
    { name: "Ready", type: "string", description: "Number of the pod with ready state.", cell: replicas },
    { name: "Up-to-date", type: "integer", description: "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", cell: (object) => Number(record(object["status"])["updatedReplicas"]) || 0 },
    { name: "Available", type: "integer", description: "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", cell: (object) => Number(record(object["status"])["availableReplicas"]) || 0 },
    AGE,
  ],
  ReplicaSet: [NAME, { name: "Desired", type: "integer", description: "Number of desired pods.", cell: (object) => Number(record(object["spec"])["replicas"] ?? 1) }, { name: "Current", type: "integer", description: "Number of actual replicas.", cell: (object) => Number(record(object["status"])["replicas"]) || 0 }, { name: "Ready", type: "integer", description: "Number of ready replicas.", cell: (object) => Number(record(object["status"])["readyReplicas"]) || 0 }, AGE],
  StatefulSet: [NAME, { name: "Ready", type: "string", description: "Number of the pod with ready state.", cell: replicas }, AGE],
  Job: [NAME, { name: "Completions", type: "string", description: "The completion status of the job.", cell: (object) => `${Number(record(object["status"])["succeeded"]) || 0}/${Number(record(object["spec"])["completions"] ?? 1)}` }, AGE],
  CronJob: [NAME, text("Schedule", "spec.schedule", "The schedule."), { name: "Suspend", type: "boolean", description: "Whether the cron job is suspended.", cell: (object) => record(object["spec"])["suspend"] === true }, AGE],
  Event: [
    { name: "Last Seen", type: "string", description: "Time since the event was last seen.", cell: (object, now) => { const last = fieldValue(object, "lastTimestamp") || fieldValue(object, "eventTime") || object.metadata.creationTimestamp; return last === undefined || last === "" ? "<unknown>" : humanDuration(now - Date.parse(last)); } },
    text("Type", "type", "Type of the event."),
    text("Reason", "reason", "Reason of the event."),
    { name: "Object", type: "string", description: "The object the event is about.", cell: (object) => `${fieldValue(object, "involvedObject.kind").toLowerCase()}/${fieldValue(object, "involvedObject.name")}` },
    text("Message", "message", "Message of the event."),
  ],
  Endpoints: [NAME, { name: "Endpoints", type: "string", description: "Endpoints of the service.", cell: (object) => list(object["subsets"]).flatMap((subset) => list(record(subset)["addresses"]).map((address) => String(record(address)["ip"] ?? ""))).join(",") || "<none>" }, AGE],
  PersistentVolumeClaim: [NAME, text("Status", "status.phase", "Phase of the claim."), text("Volume", "spec.volumeName", "Bound volume."), AGE],
  PersistentVolume: [NAME, text("Status", "status.phase", "Phase of the volume."), text("Claim", "spec.claimRef.name", "Bound claim."), AGE],
  Lease: [NAME, text("Holder", "spec.holderIdentity", "The holder of the lease."), AGE],
};
