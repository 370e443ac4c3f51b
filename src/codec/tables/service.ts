import type { ApiObject } from "../../api/object.js";
import { text, wide, AGE, NAME, type ColumnSpec } from "./column.js";
import { formatLabels, list, num, record, records, str } from "./format.js";

const spec = (service: ApiObject): Record<string, unknown> => record(service["spec"]);

/** Services without a type are ClusterIP ones (the default written on create). */
const serviceType = (service: ApiObject): string => str(spec(service)["type"]) || "ClusterIP";

/** Load-balancer ingress points (IP, else hostname), unique and sorted. */
export function loadBalancerAddresses(status: unknown): string {
  const points = records(record(record(status)["loadBalancer"])["ingress"]).map((point) => str(point["ip"]) || str(point["hostname"]));
  return [...new Set(points.filter((point) => point !== ""))].sort().join(",");
}

function externalIP(service: ApiObject): string {
  const externalIPs = list(spec(service)["externalIPs"]).map(String);
  switch (serviceType(service)) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const balancer = loadBalancerAddresses(service["status"]);
      if (externalIPs.length > 0) return [...(balancer === "" ? [] : balancer.split(",")), ...externalIPs].join(",");
      return balancer === "" ? "<pending>" : balancer;
    }
    case "ExternalName":
      return str(spec(service)["externalName"]);
    default:
      return "<unknown>";
  }
}

function ports(service: ApiObject): string {
  const entries = records(spec(service)["ports"]).map((port) => {
    const protocol = str(port["protocol"]) || "TCP";
    const nodePort = num(port["nodePort"]);
    return nodePort > 0 ? `${num(port["port"])}:${nodePort}/${protocol}` : `${num(port["port"])}/${protocol}`;
  });
  return entries.length === 0 ? "<none>" : entries.join(",");
}

function clusterIP(service: ApiObject): string {
  const first = list(spec(service)["clusterIPs"])[0];
  return (typeof first === "string" ? first : str(spec(service)["clusterIP"])) || "<none>";
}

export const SERVICE_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  text("Type", "ClusterIP, NodePort, LoadBalancer or ExternalName.", serviceType),
  text("Cluster-IP", "The service's first cluster IP.", clusterIP),
  text("External-IP", "Addresses the service is reachable at from outside.", externalIP),
  text("Port(s)", "Ports, with node ports, and protocols.", ports),
  AGE,
  wide(text("Selector", "The labels that select the service's pods.", (service) => formatLabels(spec(service)["selector"]))),
];
