import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { ServiceResolver } from "./client.js";

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * Resolves a Service-addressed hook through the Service's Endpoints (kube's endpoint resolver):
 * the service port equal to the hook's `port`, then a ready address of the endpoints subset
 * carrying that port's name, at the subset's port number; an ExternalName Service is its
 * external name at the hook's port (as kube's resolver routes it). Failures are kube's resolver
 * errors, which its webhook client reports as the dial's. `read` peeks at core/v1 objects.
 */
export function endpointsResolver(read: (plural: "services" | "endpoints", namespace: string, name: string) => ApiObject | undefined): ServiceResolver {
  return (namespace, name, port) => {
    const service = read("services", namespace, name);
    if (service === undefined) return `service "${name}" not found`;
    const spec = isPlainObject(service["spec"]) ? service["spec"] : {};
    const type = typeof spec["type"] === "string" ? spec["type"] : "ClusterIP";
    if (type === "ExternalName" && typeof spec["externalName"] === "string") return { host: spec["externalName"], port };
    if (type !== "ClusterIP" && type !== "NodePort" && type !== "LoadBalancer") return `unsupported service type "${type}"`;
    const servicePort = list(spec["ports"]).find((candidate) => candidate["port"] === port);
    if (servicePort === undefined) return `no service port ${port} found for service "${name}"`;
    const portName = typeof servicePort["name"] === "string" ? servicePort["name"] : "";
    const endpoints = read("endpoints", namespace, name);
    if (endpoints === undefined) return `endpoints "${name}" not found`;
    for (const subset of list(endpoints["subsets"])) {
      const subsetPort = list(subset["ports"]).find((candidate) => (candidate["name"] ?? "") === portName);
      const addresses = list(subset["addresses"]).filter((address) => typeof address["ip"] === "string");
      if (subsetPort === undefined || typeof subsetPort["port"] !== "number" || addresses.length === 0) continue;
      const address = addresses[Math.floor(Math.random() * addresses.length)];
      return { host: String(address?.["ip"]), port: subsetPort["port"] };
    }
    return `no endpoints available for service "${name}"`;
  };
}
