import type { FieldError } from "../../errors.js";
import { parseCidr } from "../../cel/libraries/ip.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, indexPath, invalidValue, required } from "../field-path.js";
import type { DefinitionValidator } from "../validate.js";
import { portNameErrors } from "./containers.js";
import { ensureRecord, listAt, recordAt, stringAt } from "./values.js";

/** kube's Ingress v1 and NetworkPolicy rules. */

const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];
const IPV4 = /^(\d{1,3})(\.\d{1,3}){3}$/;

const validatePath: DefinitionValidator = (value, path) => {
  const errors: FieldError[] = [];
  const pathType = stringAt(value, "pathType");
  const given = stringAt(value, "path") ?? "";
  const at = childPath(path, "path");
  if (pathType === undefined || pathType === "") return [required(childPath(path, "pathType"), "pathType must be specified")];
  if (pathType === "Exact" || pathType === "Prefix") {
    if (!given.startsWith("/")) errors.push(invalidValue(at, given, "must be an absolute path"));
    if (given !== "") {
      for (const sequence of INVALID_SEQUENCES) if (given.includes(sequence)) errors.push(invalidValue(at, given, `must not contain '${sequence}'`));
      for (const suffix of INVALID_SUFFIXES) if (given.endsWith(suffix)) errors.push(invalidValue(at, given, `cannot end with '${suffix}'`));
    }
  } else if (pathType === "ImplementationSpecific" && given !== "" && !given.startsWith("/")) {
    errors.push(invalidValue(at, given, "must be an absolute path"));
  }
  return errors;
};

/** kube's validateIngressTypedLocalObjectReference (a resource backend; an IngressClass's parameters begin alike). */
export function typedLocalObjectReferenceErrors(reference: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiGroup = stringAt(reference, "apiGroup");
  if (apiGroup !== undefined)
    for (const message of validateName(apiGroup, "dns1123-subdomain")) errors.push(invalidValue(childPath(path, "apiGroup"), apiGroup, message));
  for (const name of ["kind", "name"]) {
    const value = stringAt(reference, name) ?? "";
    if (value === "") errors.push(required(childPath(path, name), `${name} is required`));
    else for (const message of validateName(value, "path-segment")) errors.push(invalidValue(childPath(path, name), value, message));
  }
  return errors;
}

/** A wildcard host (`*.example.com`): kube's IsWildcardDNS1123Subdomain. */
const WILDCARD_TEXT =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function hostErrors(host: string): string[] {
  if (host.includes("*")) return host.startsWith("*.") && validateName(host.slice(2), "dns1123-subdomain").length === 0 ? [] : [WILDCARD_TEXT];
  return validateName(host, "dns1123-subdomain");
}

const validateBackend: DefinitionValidator = (backend, path) => {
  const errors: FieldError[] = [];
  const service = recordAt(backend, "service");
  const resource = recordAt(backend, "resource");
  if (service !== undefined && resource !== undefined) return [invalidValue(path, "", "cannot set both resource and service backends")];
  if (service === undefined && resource === undefined) return [invalidValue(path, "", "resource or service backend is required")];
  if (resource !== undefined) return typedLocalObjectReferenceErrors(resource, childPath(path, "resource"));
  if (service !== undefined) {
    const name = stringAt(service, "name") ?? "";
    if (name !== "") for (const message of validateName(name, "dns1035-label")) errors.push(invalidValue(childPath(path, "service.name"), name, message));
    const port = recordAt(service, "port");
    const portPath = childPath(path, "service.port");
    const hasName = (stringAt(port, "name") ?? "") !== "";
    const number = port?.["number"];
    const hasNumber = typeof number === "number" && number !== 0;
    // kube reports both port problems at the backend itself (`…backend: Invalid value: ""`, `…backend: Required value`).
    if (hasName && hasNumber) errors.push(invalidValue(path, "", "cannot set both port name & port number"));
    else if (!hasName && !hasNumber) errors.push(required(path, "port name or number is required"));
    else if (hasName)
      for (const message of portNameErrors(stringAt(port, "name") ?? ""))
        errors.push(invalidValue(childPath(portPath, "name"), stringAt(port, "name"), message));
    else if (hasNumber && (number < 1 || number > 65535))
      errors.push(invalidValue(childPath(portPath, "number"), number, "must be between 1 and 65535, inclusive"));
  }
  return errors;
};

function validateIngress(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec === undefined) return [required("spec")];
  const rules = listAt(spec, "rules");
  if (rules.length === 0 && recordAt(spec, "defaultBackend") === undefined)
    errors.push(invalidValue("spec", "", "either `defaultBackend` or `rules` must be specified"));
  rules.forEach((rule, index) => {
    const host = stringAt(rule, "host") ?? "";
    if (host === "") return;
    const at = childPath(indexPath("spec.rules", index), "host");
    if (IPV4.test(host) || host.includes(":")) {
      errors.push(invalidValue(at, host, "must be a DNS name, not an IP address"));
      return;
    }
    for (const message of hostErrors(host)) errors.push(invalidValue(at, host, message));
  });
  // kube's validateIngressTLS: hosts (wildcards allowed) and the secret's name.
  listAt(spec, "tls").forEach((tls, index) => {
    const at = indexPath("spec.tls", index);
    listAt(tls, "hosts").forEach((host, position) => {
      if (typeof host === "string")
        for (const message of hostErrors(host)) errors.push(invalidValue(indexPath(childPath(at, "hosts"), position), host, message));
    });
    const secretName = stringAt(tls, "secretName") ?? "";
    if (secretName !== "")
      for (const message of validateName(secretName, "dns1123-subdomain")) errors.push(invalidValue(childPath(at, "secretName"), secretName, message));
  });
  const className = stringAt(spec, "ingressClassName");
  if (className !== undefined && className !== "")
    for (const message of validateName(className, "dns1123-subdomain")) errors.push(invalidValue("spec.ingressClassName", className, message));
  return errors;
}

/**
 * kube's SetDefaults_NetworkPolicy: no (or an empty list of) policy types means Ingress, and Egress
 * too when egress rules are given. Go's spec is a plain struct, so a policy sent without one reads
 * `spec: {podSelector: {}, policyTypes: [Ingress]}`.
 */
function defaultNetworkPolicy(object: Record<string, unknown>): void {
  // The spec's Go zeros were settled before this runs (go-zeros.ts), so a spec made here gets its selector here.
  if (!isPlainObject(object["spec"])) object["spec"] = { podSelector: {} };
  const spec = ensureRecord(object, "spec");
  if (listAt(spec, "policyTypes").length > 0) return;
  spec["policyTypes"] = listAt(spec, "egress").length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
}

const INVALID_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** kube's ValidateIPBlock: a valid `cidr`, and each `except` a valid CIDR strictly inside it. */
function validateIpBlock(block: unknown, path: string): FieldError[] {
  const cidrText = stringAt(block, "cidr") ?? "";
  if (cidrText === "") return [required(childPath(path, "cidr"))];
  const cidr = parseCidr(cidrText);
  if (cidr === undefined) return [invalidValue(childPath(path, "cidr"), cidrText, INVALID_CIDR)];
  const errors: FieldError[] = [];
  const bits = BigInt(cidr.address.bits);
  const maskOf = (prefix: number): bigint => ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
  listAt(block, "except").forEach((entry, index) => {
    const at = indexPath(childPath(path, "except"), index);
    const text = typeof entry === "string" ? entry : "";
    const except = parseCidr(text);
    if (except === undefined) {
      errors.push(invalidValue(at, text, INVALID_CIDR));
      return;
    }
    const inside = except.address.bits === cidr.address.bits && (except.address.value & maskOf(cidr.prefix)) === (cidr.address.value & maskOf(cidr.prefix));
    if (!inside || cidr.prefix >= except.prefix) errors.push(invalidValue(at, text, "must be a strict subset of `cidr`"));
  });
  return errors;
}

const PORT_RANGE = "must be between 1 and 65535, inclusive";

/**
 * kube's ValidateNetworkPolicyPort (the protocol enum is the schema's): a numeric `port` in
 * 1–65535 and an `endPort` at least `port` (kube shows the port as the bad value) and in range; a
 * named `port` an IANA service name, with no `endPort`; no `endPort` without a `port`.
 */
function networkPolicyPortErrors(port: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const value = port["port"];
  const end = port["endPort"];
  const portPath = childPath(path, "port");
  const endPath = childPath(path, "endPort");
  const hasEnd = typeof end === "number";
  if (typeof value === "number") {
    if (value < 1 || value > 65535) errors.push(invalidValue(portPath, value, PORT_RANGE));
    if (hasEnd) {
      if (end < value) errors.push(invalidValue(endPath, value, "must be greater than or equal to `port`"));
      if (end < 1 || end > 65535) errors.push(invalidValue(endPath, end, PORT_RANGE));
    }
  } else if (typeof value === "string") {
    if (hasEnd) errors.push(invalidValue(endPath, end, "may not be specified when `port` is non-numeric"));
    for (const message of portNameErrors(value)) errors.push(invalidValue(portPath, value, message));
  } else if (hasEnd) {
    errors.push(invalidValue(endPath, end, "may not be specified when `port` is not specified"));
  }
  return errors;
}

function validateNetworkPolicy(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  for (const [direction, peers] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    listAt(spec, direction).forEach((rule, index) => {
      listAt(rule, "ports").forEach((port, portIndex) => {
        if (isPlainObject(port)) errors.push(...networkPolicyPortErrors(port, indexPath(childPath(indexPath(`spec.${direction}`, index), "ports"), portIndex)));
      });
      listAt(rule, peers).forEach((peer, peerIndex) => {
        if (!isPlainObject(peer)) return;
        const at = indexPath(childPath(indexPath(`spec.${direction}`, index), peers), peerIndex);
        const set = ["podSelector", "namespaceSelector", "ipBlock"].filter((key) => peer[key] !== undefined && peer[key] !== null);
        if (set.length === 0) errors.push(required(at, "must specify a peer"));
        if (peer["ipBlock"] !== undefined && set.length > 1)
          errors.push({ type: "FieldValueForbidden", field: at, message: "Forbidden: may not specify both ipBlock and another peer" });
        if (isPlainObject(peer["ipBlock"])) errors.push(...validateIpBlock(peer["ipBlock"], childPath(at, "ipBlock")));
      });
    });
  }
  return errors;
}

export const NETWORKING_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "networking.v1.NetworkPolicy": defaultNetworkPolicy,
};

export const NETWORKING_VALIDATORS: Readonly<Record<string, DefinitionValidator>> = {
  "networking.v1.HTTPIngressPath": validatePath,
  "networking.v1.IngressBackend": validateBackend,
};

export const NETWORKING_KIND_VALIDATORS: Readonly<Record<string, (object: ApiObject, old: ApiObject | undefined) => FieldError[]>> = {
  "networking.v1.Ingress": validateIngress,
  "networking.v1.NetworkPolicy": validateNetworkPolicy,
};
