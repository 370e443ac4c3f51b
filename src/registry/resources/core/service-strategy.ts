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

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function nodePortsOf(spec: Spec): number[] {
  const ports = Array.isArray(spec["ports"]) ? spec["ports"].filter(isPlainObject) : [];
  return ports.map((port) => port["nodePort"]).filter((value): value is number => typeof value === "number" && value !== 0);
}

function externallyAccessible(spec: Spec): boolean {
  return (
    spec["type"] === "LoadBalancer" ||
    spec["type"] === "NodePort" ||
    (spec["type"] === "ClusterIP" && Array.isArray(spec["externalIPs"]) && spec["externalIPs"].length > 0)
  );
}

/**
 * kube's dropTypeDependentFields: a `type` change clears what the old type needed and the new one
 * does not (cluster IPs and families when becoming ExternalName, node ports when leaving
 * NodePort/LoadBalancer, the health-check port, load-balancer class and node-port allocation,
 * the external traffic policy), but only where the update left the old value as it was (a
 * changed value is the user's, and validation judges it). So `kubectl patch svc x -p
 * '{"spec":{"type":"ExternalName","externalName":"a.example.com"}}'` succeeds as on kube.
 */
function dropTypeDependentFields(service: ApiObject, old: ApiObject): void {
  const spec = specOf(service);
  const before = specOf(old);
  if (spec === undefined || before === undefined) return;
  const needsIps = (candidate: Spec): boolean => candidate["type"] !== "ExternalName";
  if (needsIps(before) && !needsIps(spec)) {
    if (spec["clusterIP"] === before["clusterIP"] && sameJson(spec["clusterIPs"], before["clusterIPs"])) {
      delete spec["clusterIP"];
      delete spec["clusterIPs"];
    }
    if (sameJson(spec["ipFamilies"], before["ipFamilies"])) delete spec["ipFamilies"];
    if ((spec["ipFamilyPolicy"] ?? "") === (before["ipFamilyPolicy"] ?? "")) delete spec["ipFamilyPolicy"];
  }
  if (needsNodePorts(before) && !needsNodePorts(spec)) {
    const oldPorts = new Set(nodePortsOf(before));
    if (nodePortsOf(spec).every((port) => oldPorts.has(port))) {
      for (const port of Array.isArray(spec["ports"]) ? spec["ports"].filter(isPlainObject) : []) delete port["nodePort"];
    }
  }
  const needsHealthCheck = (candidate: Spec): boolean => candidate["type"] === "LoadBalancer" && candidate["externalTrafficPolicy"] === "Local";
  if (needsHealthCheck(before) && !needsHealthCheck(spec) && spec["healthCheckNodePort"] === before["healthCheckNodePort"]) delete spec["healthCheckNodePort"];
  if (before["type"] === "LoadBalancer" && spec["type"] !== "LoadBalancer") {
    if (typeof spec["allocateLoadBalancerNodePorts"] === "boolean" && spec["allocateLoadBalancerNodePorts"] === before["allocateLoadBalancerNodePorts"])
      delete spec["allocateLoadBalancerNodePorts"];
    if (spec["loadBalancerClass"] === before["loadBalancerClass"]) delete spec["loadBalancerClass"];
  }
  if (externallyAccessible(before) && !externallyAccessible(spec) && spec["externalTrafficPolicy"] === before["externalTrafficPolicy"])
    delete spec["externalTrafficPolicy"];
  const status = service["status"];
  if (spec["type"] !== "LoadBalancer" && isPlainObject(status) && status["loadBalancer"] !== undefined) status["loadBalancer"] = {};
}

/** Services: an empty load-balancer status on create; allocated values kept across updates, type-dependent ones dropped on a type change. */
export const SERVICE_STRATEGY: Partial<Strategy> = {
  ...LOAD_BALANCER_STATUS,
  prepareForUpdate(service, old) {
    keepAllocatedValues(service, old);
    dropTypeDependentFields(service, old);
  },
};
