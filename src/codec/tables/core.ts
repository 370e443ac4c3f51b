import type { ApiObject } from "../../api/object.js";
import { integer, text, wide, AGE, NAME, type CellContext, type KindTables } from "./column.js";
import { CORE_EVENT_COLUMNS } from "./event.js";
import { accessModes, containerCells, firstOf, formatLabels, list, num, present, quantity, record, records, str } from "./format.js";
import { POD_COLUMNS } from "./pod.js";
import { NODE_COLUMNS } from "./node.js";
import { SERVICE_COLUMNS } from "./service.js";

const spec = (object: ApiObject): Record<string, unknown> => record(object["spec"]);
const status = (object: ApiObject): Record<string, unknown> => record(object["status"]);

/** `ip:port` for every address and port (IPv6 bracketed), at most three shown. */
function endpointsCell(object: ApiObject): string {
  const subsets = records(object["subsets"]);
  if (subsets.length === 0) return "<none>";
  const entries: string[] = [];
  for (const subset of subsets) {
    const addresses = records(subset["addresses"]).map((address) => str(address["ip"]));
    const ports = records(subset["ports"]);
    // A headless service may list addresses without ports.
    if (ports.length === 0) entries.push(...addresses);
    for (const port of ports) entries.push(...addresses.map((ip) => `${ip.includes(":") ? `[${ip}]` : ip}:${num(port["port"])}`));
  }
  return firstOf(entries, 3, "");
}

/** `resource: used/hard` for every hard limit, sorted, split into requests and `limits.*`. */
function quotaCells(object: ApiObject): { requests: string; limits: string } {
  const hard = record(status(object)["hard"]);
  const used = record(status(object)["used"]);
  const requests: string[] = [];
  const limits: string[] = [];
  for (const resource of Object.keys(hard).sort()) {
    const entry = `${resource}: ${quantity(used[resource]) || "0"}/${quantity(hard[resource])}`;
    (resource.startsWith("limits.") ? limits : requests).push(entry);
  }
  return { requests: requests.join(", "), limits: limits.join(", ") };
}

/** A volume's or claim's class: the legacy beta annotation first, then the field. */
function storageClass(object: ApiObject, context: CellContext): string {
  const annotation = object.metadata.annotations?.[`volume.beta.${context.keyDomain}/storage-class`];
  return annotation ?? str(spec(object)["storageClassName"]);
}

/** A volume's or claim's phase, `Terminating` once deletion started. */
function volumePhase(object: ApiObject): string {
  return object.metadata.deletionTimestamp !== undefined ? "Terminating" : str(status(object)["phase"]);
}

const volumeAttributesClass = (object: ApiObject): string => str(spec(object)["volumeAttributesClassName"]) || "<unset>";
const volumeMode = (object: ApiObject): string => str(spec(object)["volumeMode"]) || "<unset>";
const templateSpec = (object: ApiObject): unknown => record(spec(object)["template"])["spec"];

export const CORE_TABLES: KindTables = {
  Pod: POD_COLUMNS,
  PodTemplate: [
    NAME,
    text("Containers", "The template's container names.", (object) => containerCells(record(object["template"])["spec"]).names),
    text("Images", "The template's container images.", (object) => containerCells(record(object["template"])["spec"]).images),
    text("Pod Labels", "The labels pods get from the template.", (object) => formatLabels(record(record(object["template"])["metadata"])["labels"])),
  ],
  ReplicationController: [
    NAME,
    integer("Desired", "Pods wanted.", (object) => num(spec(object)["replicas"] ?? 1)),
    integer("Current", "Pods that exist.", (object) => num(status(object)["replicas"])),
    integer("Ready", "Pods that are ready.", (object) => num(status(object)["readyReplicas"])),
    AGE,
    wide(text("Containers", "The template's container names.", (object) => containerCells(templateSpec(object)).names)),
    wide(text("Images", "The template's container images.", (object) => containerCells(templateSpec(object)).images)),
    wide(text("Selector", "The labels that select the pods.", (object) => formatLabels(spec(object)["selector"]))),
  ],
  Namespace: [NAME, text("Status", "Active or Terminating.", (object) => str(status(object)["phase"])), AGE],
  ConfigMap: [
    NAME,
    text(
      "Data",
      "Number of data and binary data entries.",
      (object) => Object.keys(record(object["data"])).length + Object.keys(record(object["binaryData"])).length,
    ),
    AGE,
  ],
  Secret: [
    NAME,
    text("Type", "What the secret holds.", (object) => str(object["type"])),
    text("Data", "Number of data entries.", (object) => Object.keys(record(object["data"])).length),
    AGE,
  ],
  ServiceAccount: [NAME, text("Secrets", "Number of secrets listed on the account.", (object) => list(object["secrets"]).length), AGE],
  Service: SERVICE_COLUMNS,
  Node: NODE_COLUMNS,
  Event: CORE_EVENT_COLUMNS,
  Endpoints: [NAME, text("Endpoints", "Addresses with their ports.", endpointsCell), AGE],
  ResourceQuota: [
    NAME,
    AGE,
    text("Request", "Used and hard amounts of everything but limits.", (object) => quotaCells(object).requests),
    text("Limit", "Used and hard amounts of limits.", (object) => quotaCells(object).limits),
  ],
  PersistentVolume: [
    NAME,
    text("Capacity", "The volume's storage size.", (object) => quantity(record(spec(object)["capacity"])["storage"]) || "0"),
    text("Access Modes", "How the volume can be mounted.", (object) => accessModes(spec(object)["accessModes"])),
    text("Reclaim Policy", "What happens to the volume when its claim goes.", (object) => str(spec(object)["persistentVolumeReclaimPolicy"])),
    text("Status", "The volume's phase.", volumePhase),
    text("Claim", "The bound claim as namespace/name.", (object) => {
      const claim = present(spec(object)["claimRef"]);
      return claim === undefined ? "" : `${str(claim["namespace"])}/${str(claim["name"])}`;
    }),
    text("StorageClass", "The volume's storage class.", storageClass),
    text("VolumeAttributesClass", "The volume's attributes class.", volumeAttributesClass),
    text("Reason", "Why the volume is in its phase.", (object) => str(status(object)["reason"])),
    AGE,
    wide(text("VolumeMode", "Filesystem or Block.", volumeMode)),
  ],
  PersistentVolumeClaim: [
    NAME,
    text("Status", "The claim's phase.", volumePhase),
    text("Volume", "The bound volume.", (object) => str(spec(object)["volumeName"])),
    text("Capacity", "The bound volume's size.", (object) =>
      str(spec(object)["volumeName"]) === "" ? "" : quantity(record(status(object)["capacity"])["storage"]) || "0",
    ),
    text("Access Modes", "How the bound volume can be mounted.", (object) =>
      str(spec(object)["volumeName"]) === "" ? "" : accessModes(status(object)["accessModes"]),
    ),
    text("StorageClass", "The claim's storage class.", storageClass),
    text("VolumeAttributesClass", "The claim's attributes class.", volumeAttributesClass),
    AGE,
    wide(text("VolumeMode", "Filesystem or Block.", volumeMode)),
  ],
  ComponentStatus: [
    NAME,
    text("Status", "Healthy, Unhealthy or Unknown.", (object) => {
      const healthy = records(object["conditions"]).find((entry) => entry["type"] === "Healthy");
      return healthy === undefined ? "Unknown" : healthy["status"] === "True" ? "Healthy" : "Unhealthy";
    }),
    text("Message", "The health check's message.", (object) => str(records(object["conditions"]).find((entry) => entry["type"] === "Healthy")?.["message"])),
    text("Error", "The health check's error.", (object) => str(records(object["conditions"]).find((entry) => entry["type"] === "Healthy")?.["error"])),
  ],
};
