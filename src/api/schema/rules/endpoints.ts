import { isIP } from "node:net";
import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName, validateQualifiedName } from "../../validation.js";
import { childPath, duplicate, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { labelMapErrors } from "./pod-spec.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube 1.30's checks of Endpoints (validateEndpointSubsets), EndpointSlices (discovery's
 * validateEndpoints and validatePorts) and the Service fields that take addresses or ranges
 * (external IPs, load-balancer source ranges, session affinity, node ports of ClusterIP services).
 * Texts and field paths are kube's, `spec.LoadBalancerSourceRanges`' capital L included.
 */

const IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/** The first 16 bits of an IPv6 address, or undefined when `address` is IPv4 or not an address. */
function ipv6Head(address: string): number | undefined {
  if (isIP(address) !== 6) return undefined;
  const first = address.startsWith("::") ? "0" : (address.split(":")[0] ?? "0");
  return Number.parseInt(first, 16);
}

/**
 * kube's ValidateNonSpecialIP: no unspecified, loopback or link-local address. Endpoints and
 * EndpointSlices here keep loopback addresses (`allowLoopback`): this server usually listens on
 * 127.0.0.1 and publishes that address in the `kubernetes` Endpoints (kube advertises a host
 * interface's address instead), and a Service-addressed webhook on this host is reached through
 * its Endpoints. Service `externalIPs` refuse them as kube's do.
 */
export function nonSpecialIpErrors(address: string, path: string, allowLoopback = false): FieldError[] {
  const family = isIP(address);
  if (family === 0) return [invalidValue(path, address, "must be a valid IP address")];
  const errors: FieldError[] = [];
  const octets = family === 4 ? address.split(".").map(Number) : [];
  const head = ipv6Head(address);
  const v4mapped = family === 6 && /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const v4 = family === 4 ? octets : v4mapped ? v4mapped.split(".").map(Number) : undefined;
  const unspecified = v4 !== undefined ? v4.every((octet) => octet === 0) : /^[0:]+$/.test(address);
  const loopback = v4 !== undefined ? v4[0] === 127 : /^[0:]+1$/.test(address) && address !== "::";
  const linkLocal = v4 !== undefined ? v4[0] === 169 && v4[1] === 254 : head !== undefined && (head & 0xffc0) === 0xfe80;
  const linkLocalMulticast = v4 !== undefined ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : head !== undefined && (head & 0xff0f) === 0xff02;
  if (unspecified) errors.push(invalidValue(path, address, `may not be unspecified (${address})`));
  if (loopback && !allowLoopback) errors.push(invalidValue(path, address, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (linkLocal) errors.push(invalidValue(path, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  if (linkLocalMulticast) errors.push(invalidValue(path, address, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  return errors;
}

function labelErrors(value: string, path: string): FieldError[] {
  return validateName(value, "dns1123-label").map((message) => invalidValue(path, value, message));
}

function endpointAddressErrors(address: unknown, path: string): FieldError[] {
  if (!isPlainObject(address)) return [];
  const ip = stringAt(address, "ip") ?? "";
  const errors: FieldError[] = isIP(ip) === 0 ? [invalidValue(childPath(path, "ip"), ip, IP_MESSAGE)] : [];
  const hostname = stringAt(address, "hostname") ?? "";
  if (hostname !== "") errors.push(...labelErrors(hostname, childPath(path, "hostname")));
  const nodeName = stringAt(address, "nodeName");
  if (nodeName !== undefined)
    for (const message of validateName(nodeName, "dns1123-subdomain")) errors.push(invalidValue(childPath(path, "nodeName"), nodeName, message));
  errors.push(...nonSpecialIpErrors(ip, childPath(path, "ip"), true));
  return errors;
}

/** kube's validateEndpointSubsets (the protocol enum is the schema's). */
export function validateEndpoints(endpoints: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  listAt(endpoints, "subsets").forEach((subset, index) => {
    if (!isPlainObject(subset)) return;
    const at = indexPath("subsets", index);
    const addresses = listAt(subset, "addresses");
    const notReady = listAt(subset, "notReadyAddresses");
    if (addresses.length === 0 && notReady.length === 0) errors.push(required(at, "must specify `addresses` or `notReadyAddresses`"));
    addresses.forEach((address, addressIndex) => errors.push(...endpointAddressErrors(address, indexPath(childPath(at, "addresses"), addressIndex))));
    notReady.forEach((address, addressIndex) => errors.push(...endpointAddressErrors(address, indexPath(childPath(at, "notReadyAddresses"), addressIndex))));
    const ports = listAt(subset, "ports");
    ports.forEach((port, portIndex) => {
      if (!isPlainObject(port)) return;
      const portAt = indexPath(childPath(at, "ports"), portIndex);
      const name = stringAt(port, "name") ?? "";
      if (ports.length > 1 && name === "") errors.push(required(childPath(portAt, "name")));
      else if (name !== "") errors.push(...labelErrors(name, childPath(portAt, "name")));
      const number = port["port"];
      if (typeof number !== "number" || number < 1 || number > 65535)
        errors.push(invalidValue(childPath(portAt, "port"), typeof number === "number" ? number : 0, "must be between 1 and 65535, inclusive"));
      const appProtocol = stringAt(port, "appProtocol");
      if (appProtocol !== undefined)
        for (const message of validateQualifiedName(appProtocol)) errors.push(invalidValue(childPath(portAt, "appProtocol"), appProtocol, message));
    });
  });
  return errors;
}

/** discovery's validateEndpoints and validatePorts for an EndpointSlice (the enums are the schema's). */
export function validateEndpointSlice(slice: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const addressType = stringAt(slice, "addressType");
  listAt(slice, "endpoints").forEach((endpoint, index) => {
    if (!isPlainObject(endpoint)) return;
    const at = indexPath("endpoints", index);
    const addressesAt = childPath(at, "addresses");
    const addresses = listAt(endpoint, "addresses");
    if (addresses.length === 0) errors.push(required(addressesAt, "must contain at least 1 address"));
    else if (addresses.length > 100)
      errors.push({ type: "FieldValueTooMany", field: addressesAt, message: `Too many: ${addresses.length}: must have at most 100 items` });
    addresses.forEach((address, addressIndex) => {
      const text = String(address);
      const addressAt = indexPath(addressesAt, addressIndex);
      if (addressType === "IPv4" || addressType === "IPv6") {
        const family = addressType === "IPv4" ? 4 : 6;
        // discovery's validateEndpoints: the special-range checks only for an address of the slice's family.
        if (isIP(text) !== family) errors.push(invalidValue(addressAt, text, `must be a valid ${addressType} address`));
        else errors.push(...nonSpecialIpErrors(text, addressAt, true));
      }
    });
    const nodeName = stringAt(endpoint, "nodeName");
    if (nodeName !== undefined)
      for (const message of validateName(nodeName, "dns1123-subdomain")) errors.push(invalidValue(childPath(at, "nodeName"), nodeName, message));
    errors.push(...labelMapErrors(recordAt(endpoint, "deprecatedTopology"), childPath(at, "deprecatedTopology")));
    const hostname = stringAt(endpoint, "hostname");
    if (hostname !== undefined) errors.push(...labelErrors(hostname, childPath(at, "hostname")));
  });
  const names = new Set<string>();
  listAt(slice, "ports").forEach((port, index) => {
    if (!isPlainObject(port)) return;
    const at = indexPath("ports", index);
    const name = stringAt(port, "name") ?? "";
    if (name !== "") errors.push(...labelErrors(name, childPath(at, "name")));
    if (names.has(name)) errors.push(duplicate(childPath(at, "name"), name));
    names.add(name);
    const appProtocol = stringAt(port, "appProtocol");
    if (appProtocol !== undefined)
      for (const message of validateQualifiedName(appProtocol)) errors.push(invalidValue(childPath(at, "appProtocol"), appProtocol, message));
  });
  return errors;
}

/** Go's ParseCIDR, as GetLoadBalancerSourceRanges uses it (surrounding spaces allowed). */
function isCidr(text: string): boolean {
  const [address = "", mask = "", ...rest] = text.trim().split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0 || !/^\d{1,3}$/.test(mask)) return false;
  return Number(mask) <= (family === 4 ? 32 : 128);
}

/** The Service rules above, on a ServiceSpec at `path`. */
export function serviceAddressErrors(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const affinity = stringAt(spec, "sessionAffinity");
  const config = recordAt(spec, "sessionAffinityConfig");
  const configAt = childPath(path, "sessionAffinityConfig");
  if (affinity === "ClientIP") {
    const timeout = recordAt(config, "clientIP")?.["timeoutSeconds"];
    if (typeof timeout === "number" && (timeout <= 0 || timeout > 86400))
      errors.push(invalidValue(childPath(childPath(configAt, "clientIP"), "timeoutSeconds"), timeout, "must be greater than 0 and less than 86400"));
  } else if (affinity === "None" && config !== undefined) {
    errors.push(forbidden(configAt, "must not be set when session affinity is None"));
  }
  listAt(spec, "externalIPs").forEach((ip, index) => {
    const text = String(ip);
    const at = indexPath(childPath(path, "externalIPs"), index);
    if (isIP(text) === 0) errors.push(invalidValue(at, text, IP_MESSAGE));
    else errors.push(...nonSpecialIpErrors(text, at));
  });
  const type = stringAt(spec, "type") ?? "ClusterIP";
  if (type === "ClusterIP")
    listAt(spec, "ports").forEach((port, index) => {
      const nodePort = isPlainObject(port) ? port["nodePort"] : undefined;
      if (typeof nodePort === "number" && nodePort !== 0)
        errors.push(forbidden(childPath(indexPath(childPath(path, "ports"), index), "nodePort"), "may not be used when `type` is 'ClusterIP'"));
    });
  const ranges = listAt(spec, "loadBalancerSourceRanges").map(String);
  if (ranges.length > 0) {
    const rangesAt = childPath(path, "LoadBalancerSourceRanges");
    if (type !== "LoadBalancer") errors.push(forbidden(rangesAt, "may only be used when `type` is 'LoadBalancer'"));
    if (!ranges.every(isCidr))
      errors.push(invalidValue(rangesAt, `[${ranges.join(" ")}]`, "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 "));
  }
  return errors;
}
