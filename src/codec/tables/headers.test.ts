import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { columnsFor } from "./index.js";
import { tableKeys } from "./_testing.js";

/**
 * The columns of every table as kube-apiserver 1.30 declares them, in order. A column is written
 * `Name`, prefixed `+` when shown only with `-o wide`, suffixed `:integer`/`:boolean` for a type
 * other than string and `@name` for the name format.
 */
const HEADERS: Readonly<Record<string, readonly string[]>> = {
  "/Pod": ["Name@name", "Ready", "Status", "Restarts", "Age", "+IP", "+Node", "+Nominated Node", "+Readiness Gates"],
  "/PodTemplate": ["Name@name", "Containers", "Images", "Pod Labels"],
  "/ReplicationController": ["Name@name", "Desired:integer", "Current:integer", "Ready:integer", "Age", "+Containers", "+Images", "+Selector"],
  "/Namespace": ["Name@name", "Status", "Age"],
  "/ConfigMap": ["Name@name", "Data", "Age"],
  "/Secret": ["Name@name", "Type", "Data", "Age"],
  "/ServiceAccount": ["Name@name", "Secrets", "Age"],
  "/Service": ["Name@name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "+Selector"],
  "/Node": ["Name@name", "Status", "Roles", "Age", "Version", "+Internal-IP", "+External-IP", "+OS-Image", "+Kernel-Version", "+Container-Runtime"],
  "/Event": ["Last Seen", "Type", "Reason", "Object", "+Subobject", "+Source", "Message", "+First Seen", "+Count", "+Name@name"],
  "/Endpoints": ["Name@name", "Endpoints", "Age"],
  "/ResourceQuota": ["Name@name", "Age", "Request", "Limit"],
  "/PersistentVolume": [
    "Name@name",
    "Capacity",
    "Access Modes",
    "Reclaim Policy",
    "Status",
    "Claim",
    "StorageClass",
    "VolumeAttributesClass",
    "Reason",
    "Age",
    "+VolumeMode",
  ],
  "/PersistentVolumeClaim": ["Name@name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "+VolumeMode"],
  "/ComponentStatus": ["Name@name", "Status", "Message", "Error"],
  "apps/Deployment": ["Name@name", "Ready", "Up-to-date", "Available", "Age", "+Containers", "+Images", "+Selector"],
  "apps/ReplicaSet": ["Name@name", "Desired:integer", "Current:integer", "Ready:integer", "Age", "+Containers", "+Images", "+Selector"],
  "apps/StatefulSet": ["Name@name", "Ready", "Age", "+Containers", "+Images"],
  "apps/DaemonSet": [
    "Name@name",
    "Desired:integer",
    "Current:integer",
    "Ready:integer",
    "Up-to-date:integer",
    "Available:integer",
    "Node Selector",
    "Age",
    "+Containers",
    "+Images",
    "+Selector",
  ],
  "apps/ControllerRevision": ["Name@name", "Controller", "Revision", "Age"],
  "batch/Job": ["Name@name", "Status", "Completions", "Duration", "Age", "+Containers", "+Images", "+Selector"],
  "batch/CronJob": ["Name@name", "Schedule", "Timezone", "Suspend:boolean", "Active:integer", "Last Schedule", "Age", "+Containers", "+Images", "+Selector"],
  "autoscaling/HorizontalPodAutoscaler": ["Name@name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
  "autoscaling/Scale": ["Name", "Desired:integer", "Available:integer", "Age"],
  "policy/PodDisruptionBudget": ["Name@name", "Min Available", "Max Unavailable", "Allowed Disruptions:integer", "Age"],
  "networking/Ingress": ["Name@name", "Class", "Hosts", "Address", "Ports", "Age"],
  "networking/IngressClass": ["Name@name", "Controller", "Parameters", "Age"],
  "networking/NetworkPolicy": ["Name@name", "Pod-Selector", "Age"],
  "storage/StorageClass": ["Name@name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"],
  "storage/CSIDriver": [
    "Name@name",
    "AttachRequired:boolean",
    "PodInfoOnMount:boolean",
    "StorageCapacity:boolean",
    "TokenRequests",
    "RequiresRepublish:boolean",
    "Modes",
    "Age",
  ],
  "storage/CSINode": ["Name@name", "Drivers:integer", "Age"],
  "storage/VolumeAttachment": ["Name@name", "Attacher@name", "PV", "Node", "Attached:boolean", "Age"],
  "scheduling/PriorityClass": ["Name@name", "Value:integer", "Global-Default:boolean", "Age"],
  "node/RuntimeClass": ["Name@name", "Handler", "Age"],
  "coordination/Lease": ["Name@name", "Holder", "Age"],
  "discovery/EndpointSlice": ["Name@name", "AddressType", "Ports", "Endpoints", "Age"],
  "events/Event": ["Last Seen", "Type", "Reason", "Object", "+Subobject", "+Source", "Message", "+First Seen", "+Count", "+Name@name"],
  "rbac.authorization/RoleBinding": ["Name@name", "Role", "Age", "+Users", "+Groups", "+ServiceAccounts"],
  "rbac.authorization/ClusterRoleBinding": ["Name@name", "Role", "Age", "+Users", "+Groups", "+ServiceAccounts"],
  "certificates/CertificateSigningRequest": ["Name@name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"],
  "admissionregistration/MutatingWebhookConfiguration": ["Name@name", "Webhooks:integer", "Age"],
  "admissionregistration/ValidatingWebhookConfiguration": ["Name@name", "Webhooks:integer", "Age"],
  "admissionregistration/ValidatingAdmissionPolicy": ["Name@name", "Validations:integer", "ParamKind", "Age"],
  "admissionregistration/ValidatingAdmissionPolicyBinding": ["Name@name", "PolicyName", "ParamRef", "Age"],
  "flowcontrol.apiserver/FlowSchema": ["Name@name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age", "MissingPL"],
  "flowcontrol.apiserver/PriorityLevelConfiguration": ["Name@name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit", "Age"],
  "apiregistration/APIService": ["Name@name", "Service", "Available", "Age"],
};

function written(column: { name: string; type: string; format?: string; priority?: number }): string {
  const type = column.type === "string" ? "" : `:${column.type}`;
  const format = column.format === undefined ? "" : `@${column.format}`;
  return `${column.priority === 1 ? "+" : ""}${column.name}${type}${format}`;
}

describe("table columns: names, types, formats, order and wide columns per kind", () => {
  it("every table is listed here, and nothing else", () => {
    assert.deepEqual(tableKeys(() => true).sort(), Object.keys(HEADERS).sort());
  });

  for (const [key, expected] of Object.entries(HEADERS)) {
    it(key, () => {
      const columns = columnsFor(key.slice(0, key.lastIndexOf("/")), key.slice(key.lastIndexOf("/") + 1));
      assert.ok(columns !== undefined, `no columns for ${key}`);
      assert.deepEqual(columns.map(written), expected);
      assert.ok(
        columns.every((column) => column.description.length > 0),
        "every column is described",
      );
    });
  }
});
