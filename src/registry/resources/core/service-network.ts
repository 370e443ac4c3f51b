import { parseCidr } from "../../../util/cidr.js";
import type { ServiceNetwork } from "./service-allocations.js";

export type { ServiceNetwork } from "./service-allocations.js";

/** `--service-cluster-ip-range` and `--service-node-port-range` when not given. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24";
export const DEFAULT_SERVICE_NODE_PORT_RANGE = "30000-32767";

/**
 * Parses the two flags' values: one CIDR or two of different families, comma-separated (the
 * first is the primary family), and `low-high` or `low+size` ports. Throws an Error naming the problem.
 */
export function parseServiceNetwork(clusterIpRange: string, nodePortRange: string): ServiceNetwork {
  const clusterIpRanges = clusterIpRange.split(",").map((cidr) => parseCidr(cidr.trim()));
  if (clusterIpRanges.length > 2) throw new Error("--service-cluster-ip-range takes at most two CIDRs (one per family)");
  if (clusterIpRanges.length === 2 && clusterIpRanges[0]?.family === clusterIpRanges[1]?.family)
    throw new Error("--service-cluster-ip-range: the two CIDRs must be of different IP families");
  const ports = /^(\d+)(?:-(\d+)|\+(\d+))$/.exec(nodePortRange.trim());
  if (ports === null) throw new Error(`--service-node-port-range: ${JSON.stringify(nodePortRange)} is not low-high or low+size`);
  const base = Number(ports[1]);
  const size = ports[2] !== undefined ? Number(ports[2]) - base + 1 : Number(ports[3]) + 1;
  if (size < 1 || base < 1 || base + size - 1 > 65535) throw new Error(`--service-node-port-range: ${JSON.stringify(nodePortRange)} is not a range of ports`);
  return { clusterIpRanges, nodePorts: { base, size } };
}

export const DEFAULT_SERVICE_NETWORK: ServiceNetwork = parseServiceNetwork(DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE);
