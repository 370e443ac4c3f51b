import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { Strategy } from "../../definition.js";
import { LOAD_BALANCER_STATUS } from "../initial-status.js";

type Spec = Record<string, unknown>;

function specOf(service: ApiObject): Spec | undefined {
  const spec = service["spec"];
  return isPlainObject(spec) ? spec : undefined;
}

function needsClusterIp(spec: Spec): boolean {
  return spec["type"] !== "ExternalName" && spec["clusterIP"] !== "None";
}

function needsNodePorts(spec: Spec): boolean {
  return spec["type"] === "NodePort" || spec["type"] === "LoadBalancer";
}

/**
 * kube's patchAllocatedValues: an update that leaves out what the server allocated (a `kubectl
 * replace` of the original manifest) keeps the stored cluster IPs, families and node ports,
 * so only a real change of them is judged (and refused) by validation.
 */
function keepAllocatedValues(service: ApiObject, old: ApiObject): void {
  const spec = specOf(service);
  const before = specOf(old);
  if (spec === undefined || before === undefined) return;
  if (needsClusterIp(before) && needsClusterIp(spec)) {
    if ((spec["clusterIP"] === undefined || spec["clusterIP"] === "") && before["clusterIP"] !== undefined) spec["clusterIP"] = before["clusterIP"];
    if ((!Array.isArray(spec["clusterIPs"]) || spec["clusterIPs"].length === 0) && before["clusterIPs"] !== undefined)
      spec["clusterIPs"] = before["clusterIPs"];
    spec["ipFamilies"] ??= before["ipFamilies"];
    spec["ipFamilyPolicy"] ??= before["ipFamilyPolicy"];
  }
  if (needsNodePorts(before) && needsNodePorts(spec)) {
    const oldPorts = Array.isArray(before["ports"]) ? before["ports"].filter(isPlainObject) : [];
    const ports = Array.isArray(spec["ports"]) ? spec["ports"].filter(isPlainObject) : [];
    for (const port of ports) {
      if (port["nodePort"] !== undefined && port["nodePort"] !== 0) continue;
      const match = oldPorts.find((candidate) => candidate["port"] === port["port"] && (candidate["protocol"] ?? "TCP") === (port["protocol"] ?? "TCP"));
      if (match?.["nodePort"] !== undefined) port["nodePort"] = match["nodePort"];
    }
  }
  if (
    (spec["healthCheckNodePort"] === undefined || spec["healthCheckNodePort"] === 0) &&
    before["healthCheckNodePort"] !== undefined &&
    spec["type"] === before["type"]
  )
    spec["healthCheckNodePort"] = before["healthCheckNodePort"];
}

/** Services: an empty load-balancer status on create; allocated values kept across updates. */
export const SERVICE_STRATEGY: Partial<Strategy> = {
  ...LOAD_BALANCER_STATUS,
  prepareForUpdate(service, old) {
    keepAllocatedValues(service, old);
  },
};
