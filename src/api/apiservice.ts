import { isPlainObject, type ApiObject } from "./object.js";
import type { Profile } from "./profile.js";

/** Where an APIService sends its group version: absent for one this server serves itself. */
export interface ApiServiceBackend {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  /** PEM bundle (decoded from the object's base64) verifying the backend's serving certificate; "" for none. */
  readonly caBundle: string;
  readonly insecureSkipTlsVerify: boolean;
}

/** The fields of an APIService the server acts on, read from the object once. */
export interface ApiServiceView {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  readonly backend: ApiServiceBackend | undefined;
  /** The `Available` condition is True. */
  readonly available: boolean;
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const integer = (value: unknown, absent: number): number => (typeof value === "number" ? value : absent);

/** An APIService object as the server reads it. */
export function readApiService(object: ApiObject): ApiServiceView {
  const spec = record(object["spec"]);
  const service = isPlainObject(spec["service"]) ? spec["service"] : undefined;
  const conditions = Array.isArray(record(object["status"])["conditions"]) ? (record(object["status"])["conditions"] as unknown[]) : [];
  const available = conditions.some((condition) => record(condition)["type"] === "Available" && record(condition)["status"] === "True");
  return {
    name: object.metadata.name ?? "",
    group: text(spec["group"]),
    version: text(spec["version"]),
    groupPriorityMinimum: integer(spec["groupPriorityMinimum"], 0),
    versionPriority: integer(spec["versionPriority"], 0),
    backend:
      service === undefined
        ? undefined
        : {
            namespace: text(service["namespace"]),
            name: text(service["name"]),
            port: integer(service["port"], 443),
            caBundle: Buffer.from(text(spec["caBundle"]), "base64").toString("utf8"),
            insecureSkipTlsVerify: spec["insecureSkipTLSVerify"] === true,
          },
    available,
  };
}

/** An APIService's name: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** Group and version priorities of an APIService. */
export interface ApiServicePriority {
  readonly group: number;
  readonly version: number;
}

/**
 * kube 1.30's priorities of the built-in group versions (its aggregator's table), by group as the
 * schema catalogue names it (`""` core, `apps`, `networking` for `networking.<apiDomain>`): the
 * order of groups in discovery, and of versions within each. kube registers no APIService for a
 * group version missing here.
 */
const BUILTIN_PRIORITIES: Readonly<Record<string, readonly [number, Readonly<Record<string, number>>]>> = {
  "": [18000, { v1: 1 }],
  apps: [17800, { v1: 15 }],
  events: [17750, { v1: 15, v1beta1: 5 }],
  authentication: [17700, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  authorization: [17600, { v1: 15 }],
  autoscaling: [17500, { v2: 30, v1: 15, v2beta1: 9, v2beta2: 1 }],
  batch: [17400, { v1: 15, v1beta1: 9 }],
  certificates: [17300, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  networking: [17200, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  policy: [17100, { v1: 15, v1beta1: 9 }],
  "rbac.authorization": [17000, { v1: 15 }],
  storage: [16800, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  apiextensions: [16700, { v1: 15 }],
  admissionregistration: [16700, { v1: 15, v1beta1: 12, v1alpha1: 9 }],
  scheduling: [16600, { v1: 15 }],
  coordination: [16500, { v1: 15 }],
  node: [16300, { v1: 15, v1alpha1: 1, v1beta1: 9 }],
  discovery: [16200, { v1: 15, v1beta1: 12 }],
  "flowcontrol.apiserver": [16100, { v1: 21, v1beta3: 18, v1beta2: 15, v1beta1: 12 }],
  "internal.apiserver": [16000, { v1alpha1: 9 }],
};

/** Groups spelled without the API domain in every profile. */
const PLAIN_GROUPS: ReadonlySet<string> = new Set(["", "apps", "autoscaling", "batch", "policy"]);

/** A built-in group version's priorities in this profile's spelling; undefined when kube's table has none. */
export function builtinApiServicePriority(profile: Profile, group: string, version: string): ApiServicePriority | undefined {
  const suffix = `.${profile.apiDomain}`;
  const key = PLAIN_GROUPS.has(group) ? group : group.endsWith(suffix) ? group.slice(0, -suffix.length) : undefined;
  const entry = key === undefined || PLAIN_GROUPS.has(key) !== PLAIN_GROUPS.has(group) ? undefined : BUILTIN_PRIORITIES[key];
  const versionPriority = entry?.[1][version];
  return entry === undefined || versionPriority === undefined ? undefined : { group: entry[0], version: versionPriority };
}

/** A custom resource's group version: low, so built-in groups come first (kube's CRD registration). */
export const CUSTOM_RESOURCE_PRIORITY: ApiServicePriority = { group: 1000, version: 100 };

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * kube's CompareKubeAwareVersionStrings as a sort comparator (negative: `a` first): kube-like
 * versions (`v2`, `v1beta1`) before others, GA before beta before alpha, then the higher major and
 * minor first; the others alphabetically.
 */
export function compareKubeVersions(a: string, b: string): number {
  const left = KUBE_VERSION.exec(a);
  const right = KUBE_VERSION.exec(b);
  if (left === null || right === null) {
    if (left !== null) return -1;
    if (right !== null) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stability = (match: RegExpExecArray): number => (match[2] === undefined ? 2 : match[2] === "beta" ? 1 : 0);
  if (stability(left) !== stability(right)) return stability(right) - stability(left);
  if (left[1] !== right[1]) return Number(right[1]) - Number(left[1]);
  return Number(right[3] ?? 0) - Number(left[3] ?? 0);
}

/** Where a backend's requests go: an address, or why there is none (kube's resolver's wording). */
export type BackendAddress =
  | { readonly kind: "address"; readonly host: string; readonly port: number }
  | { readonly kind: "unresolved"; readonly message: string };

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * kube's endpoint routing of an APIService's service (its `--enable-aggregator-routing`
 * resolver; cluster IPs are not routable here, so it is the only one): an ExternalName service's
 * name at the APIService's port, otherwise a ready address of the service's Endpoints on the port
 * named as the service port the APIService's port matches.
 */
export function resolveBackend(service: ApiObject | undefined, endpoints: ApiObject | undefined, backend: ApiServiceBackend): BackendAddress {
  if (service === undefined) return { kind: "unresolved", message: `service "${backend.name}" not found` };
  const spec = record(service["spec"]);
  if (spec["type"] === "ExternalName") return { kind: "address", host: text(spec["externalName"]), port: backend.port };
  const servicePort = list(spec["ports"]).find((port) => port["port"] === backend.port);
  if (servicePort === undefined) return { kind: "unresolved", message: `no service port ${backend.port} found for service "${backend.name}"` };
  if (endpoints === undefined) return { kind: "unresolved", message: `endpoints "${backend.name}" not found` };
  const portName = text(servicePort["name"]);
  for (const subset of list(endpoints["subsets"])) {
    const port = list(subset["ports"]).find((candidate) => text(candidate["name"]) === portName);
    const address = list(subset["addresses"])[0];
    if (port !== undefined && address !== undefined && typeof port["port"] === "number")
      return { kind: "address", host: text(address["ip"]) || text(address["hostname"]), port: port["port"] };
  }
  return { kind: "unresolved", message: `no endpoints available for service "${backend.name}"` };
}
