import { isIPv4, isIPv6 } from "node:net";
import { ApiError, badRequest } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { ResourceVerb } from "../../../request/request-info.js";
import type { ConnectHandler } from "../../definition.js";
import type { Store } from "../../store.js";

/** What kube serves for its proxy sub-resources. */
const PROXY_VERBS: readonly ResourceVerb[] = ["create", "delete", "get", "patch", "update"];
const STREAM_VERBS: readonly ResourceVerb[] = ["create", "get"];

/** The node address types kube-apiserver dials a kubelet at (`--kubelet-preferred-address-types`' default). */
const PREFERRED_ADDRESS_TYPES: ReadonlySet<string> = new Set(["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"]);

function noAgent(node: string): ApiError {
  return new ApiError(503, "ServiceUnavailable", `no node agent is connected for node "${node}": this server runs without kubelets`);
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((container) => record(container)["name"]).filter((name): name is string => typeof name === "string") : [];
}

/**
 * kube's container check for logs, exec and attach: a named container must be one of the pod's
 * (init and ephemeral ones count); none named is the only container, else a 400 listing them all
 * (init, regular, ephemeral, as kube visits them, in Go's `[a b]` form).
 */
function checkContainer(pod: ApiObject, container: string): void {
  const spec = record(pod["spec"]);
  const regular = names(spec["containers"]);
  const all = [...names(spec["initContainers"]), ...regular, ...names(spec["ephemeralContainers"])];
  const name = pod.metadata.name ?? "";
  if (container !== "") {
    if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
    return;
  }
  if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  if (regular.length > 1) throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`);
}

/**
 * Where kube-apiserver would dial the node's kubelet: a missing node is 404, a node without an
 * address of a preferred type kube's 500 (no reason); a reachable-looking node is 503 here, as no
 * node agent connects to this server.
 */
async function unreachableNode(node: string, lookup: (group: string, version: string, plural: string) => Store | undefined): Promise<never> {
  const nodes = lookup("", "v1", "nodes");
  if (nodes !== undefined) {
    const object = await nodes.get("", node);
    const addresses = record(object["status"])["addresses"];
    const list = Array.isArray(addresses) ? addresses.map(record) : [];
    if (!list.some((address) => typeof address["type"] === "string" && PREFERRED_ADDRESS_TYPES.has(address["type"]))) {
      const known = list.map((address) => `{${String(address["type"] ?? "")} ${String(address["address"] ?? "")}}`).join(" ");
      throw new ApiError(500, "", `no preferred addresses found; known addresses: [${known}]`);
    }
  }
  throw noAgent(node);
}

/**
 * A pod's streams (`log`, `exec`, `attach`, `portforward`), in kube's order: the pod (404), the
 * container (logs, exec, attach), the node it is on — none: an empty log (204) or 400 for the
 * others — then the node itself (404, no address: 500) and, past all that, 503 naming the node.
 */
function podStream(verbs: readonly ResourceVerb[], subresource: "log" | "exec" | "attach" | "portforward"): ConnectHandler {
  return {
    verbs,
    async answer({ namespace, name, store, query, lookup }) {
      const pod = await store.get(namespace, name);
      if (subresource !== "portforward") checkContainer(pod, query.get("container") ?? "");
      const spec = record(pod["spec"]);
      const node = typeof spec["nodeName"] === "string" ? spec["nodeName"] : "";
      if (node === "") {
        if (subresource === "log") return "no-content";
        throw badRequest(`pod ${name} does not have a host assigned`);
      }
      return unreachableNode(node, lookup);
    },
  };
}

/**
 * kube's proxy id: `name`, `name:port` or `scheme:name:port`, the scheme `http`, `https` or empty;
 * anything else (more colons, an empty name, another scheme) is undefined.
 */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(":");
  const [scheme, name, port] = parts.length === 1 ? ["", parts[0], ""] : parts.length === 2 ? ["", parts[0], parts[1]] : parts.length === 3 ? parts : [];
  if (name === undefined || name === "" || port === undefined || (scheme !== "" && scheme !== "http" && scheme !== "https")) return undefined;
  return { scheme: scheme ?? "", name, port };
}

/** Whether kube would dial this pod address: an IP that is global unicast (not unspecified, loopback, link-local or multicast). */
function proxyableAddress(address: string): boolean {
  if (isIPv4(address)) {
    const [a = 0, b = 0] = address.split(".").map(Number);
    return !(a === 0 || a === 127 || a >= 224 || (a === 169 && b === 254));
  }
  if (isIPv6(address)) {
    const lower = address.toLowerCase();
    if (lower === "::" || lower === "::1") return false;
    const first = Number.parseInt(lower.split(":")[0] || "0", 16);
    return !((first & 0xff00) === 0xff00 || (first & 0xffc0) === 0xfe80);
  }
  return false;
}

/**
 * The pod proxy reaches the pod's own address, not its node: kube takes `[scheme:]name[:port]`,
 * reads the pod (404), and refuses a pod without a routable IP (`status.podIPs[0]`) with 400
 * `address not allowed`, scheduled or not. A pod with an address is past what this server reaches.
 */
const POD_PROXY: ConnectHandler = {
  verbs: PROXY_VERBS,
  async answer({ namespace, name: id, store }) {
    const parts = splitSchemeNamePort(id);
    if (parts === undefined) throw badRequest(`invalid pod request "${id}"`);
    const pod = await store.get(namespace, parts.name);
    const ips = record(pod["status"])["podIPs"];
    const address = Array.isArray(ips) ? record(ips[0])["ip"] : undefined;
    if (typeof address !== "string" || !proxyableAddress(address)) throw badRequest("address not allowed");
    const node = record(pod["spec"])["nodeName"];
    throw noAgent(typeof node === "string" ? node : "");
  },
};

export const POD_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  log: podStream(["get"], "log"),
  exec: podStream(STREAM_VERBS, "exec"),
  attach: podStream(STREAM_VERBS, "attach"),
  portforward: podStream(STREAM_VERBS, "portforward"),
  proxy: POD_PROXY,
};

/**
 * The node proxy reaches the node's kubelet: kube takes `[scheme:]name[:port]` (400 otherwise),
 * then finds the node (404) and its preferred address (none: 500) before it dials.
 */
export const NODE_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  proxy: {
    verbs: PROXY_VERBS,
    async answer({ name: id, lookup }) {
      const parts = splitSchemeNamePort(id);
      if (parts === undefined) throw badRequest(`invalid node request "${id}"`);
      return unreachableNode(parts.name, lookup);
    },
  },
};

/**
 * A service's proxy reaches one of its endpoints, in kube's order: the id `[scheme:]name[:port]`
 * (400 otherwise); a port given as a number must be one of the service's (the service 404, the
 * port 503); then the service's Endpoints (404 when there are none, as for a service without a
 * selector), 503 when they have no subsets. Endpoints with addresses lead to pods on nodes no
 * agent connects from.
 */
export const SERVICE_CONNECT: Readonly<Record<string, ConnectHandler>> = {
  proxy: {
    verbs: PROXY_VERBS,
    async answer({ namespace, name: id, store, lookup }) {
      const parts = splitSchemeNamePort(id);
      if (parts === undefined) throw badRequest(`invalid service request "${id}"`);
      const { name, port } = parts;
      if (/^[+-]?\d+$/.test(port)) {
        const service = await store.get(namespace, name);
        const ports = record(service["spec"])["ports"];
        const number = Number(port);
        if (!(Array.isArray(ports) && ports.some((entry) => record(entry)["port"] === number)))
          throw new ApiError(503, "ServiceUnavailable", `no service port ${number} found for service "${name}"`);
      }
      const endpoints = lookup("", "v1", "endpoints");
      const subsets = endpoints === undefined ? [] : record(await endpoints.get(namespace, name))["subsets"];
      if (!Array.isArray(subsets) || subsets.length === 0) throw new ApiError(503, "ServiceUnavailable", `no endpoints available for service "${name}"`);
      throw new ApiError(503, "ServiceUnavailable", `no node agent is connected for the endpoints of service "${name}": this server runs without kubelets`);
    },
  },
};
