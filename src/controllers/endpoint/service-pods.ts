import { isIP } from "node:net";
import type { ResourceRef } from "../../api/client.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { apiGroup, type Profile } from "../../api/profile.js";
import type { InformerView } from "../runtime/informer.js";

export const SERVICES: ResourceRef = { group: "", version: "v1", plural: "services" };
export const PODS: ResourceRef = { group: "", version: "v1", plural: "pods" };
export const ENDPOINTS: ResourceRef = { group: "", version: "v1", plural: "endpoints" };

/** The label and annotation names the endpoint controllers write, spelled by the profile. */
export interface EndpointNames {
  readonly endpointSlices: ResourceRef;
  /** `<keyDomain>/service-name` on slices. */
  readonly serviceNameLabel: string;
  /** `endpointslice.<keyDomain>/managed-by`. */
  readonly managedByLabel: string;
  /** `endpointslice-controller.<apiDomain>`. */
  readonly sliceManager: string;
  /** `endpointslicemirroring-controller.<apiDomain>`. */
  readonly mirroringManager: string;
  /** `endpointslice.<keyDomain>/skip-mirror`: set on the Endpoints this server's controllers write, so they are not mirrored. */
  readonly skipMirrorLabel: string;
  /** `endpoints.<keyDomain>/over-capacity`: `truncated` when an Endpoints was cut to 1,000 addresses. */
  readonly overCapacityAnnotation: string;
  /** `service.<keyDomain>/headless` on the Endpoints and slices of a headless Service. */
  readonly headlessLabel: string;
}

export function endpointNames(profile: Profile): EndpointNames {
  return {
    endpointSlices: { group: apiGroup(profile, "discovery"), version: "v1", plural: "endpointslices" },
    serviceNameLabel: `${profile.keyDomain}/service-name`,
    managedByLabel: `endpointslice.${profile.keyDomain}/managed-by`,
    sliceManager: `endpointslice-controller.${profile.apiDomain}`,
    mirroringManager: `endpointslicemirroring-controller.${profile.apiDomain}`,
    skipMirrorLabel: `endpointslice.${profile.keyDomain}/skip-mirror`,
    overCapacityAnnotation: `endpoints.${profile.keyDomain}/over-capacity`,
    headlessLabel: `service.${profile.keyDomain}/headless`,
  };
}

/**
 * A pod narrowed to what the endpoint controllers read (kube's informer transform): name,
 * namespace, uid, labels and deletion mark; the node; the containers' ports; the IP, phase and
 * Ready condition. Their shared index keeps these rather than whole pods: admission and defaults
 * make a pod several times larger (token volume, tolerations, managedFields), and a server with
 * many pods kept every one of them decoded.
 */
export function endpointPod(pod: ApiObject): ApiObject {
  const source = pod.metadata;
  const metadata: ApiObject["metadata"] = { name: source.name, namespace: source.namespace, uid: source.uid };
  if (source.labels !== undefined) metadata.labels = source.labels;
  if (source.deletionTimestamp !== undefined) metadata.deletionTimestamp = source.deletionTimestamp;
  const view: ApiObject = { apiVersion: pod.apiVersion, kind: pod.kind, metadata };
  const spec = record(pod["spec"]);
  const narrowedSpec: Record<string, unknown> = {};
  if (spec["nodeName"] !== undefined) narrowedSpec["nodeName"] = spec["nodeName"];
  const containers = spec["containers"];
  if (Array.isArray(containers) && containers.some((container) => record(container)["ports"] !== undefined)) {
    narrowedSpec["containers"] = containers.map((container) => ({ ports: record(container)["ports"] }));
  }
  view["spec"] = narrowedSpec;
  const status = record(pod["status"]);
  const narrowedStatus: Record<string, unknown> = {};
  if (status["podIP"] !== undefined) narrowedStatus["podIP"] = status["podIP"];
  if (status["phase"] !== undefined) narrowedStatus["phase"] = status["phase"];
  const conditions = status["conditions"];
  if (Array.isArray(conditions)) narrowedStatus["conditions"] = conditions.filter((condition) => record(condition)["type"] === "Ready");
  view["status"] = narrowedStatus;
  return view;
}

/** The endpoint controllers' view of pods (`endpointPod`), one index for both. */
export const ENDPOINT_POD_VIEW: InformerView = { name: "endpoints", project: endpointPod };

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function stringMap(value: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(record(value)).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** A Service's selector; undefined when it has none (such a Service's Endpoints belong to the user). */
export function selectorOf(service: ApiObject): Record<string, string> | undefined {
  const selector = stringMap(record(service["spec"])["selector"]);
  return Object.keys(selector).length === 0 ? undefined : selector;
}

export function matches(selector: Readonly<Record<string, string>>, pod: ApiObject): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** One port of an endpoint, resolved for a pod. */
export interface EndpointPort {
  readonly name?: string;
  readonly port: number;
  readonly protocol: string;
  readonly appProtocol?: string;
}

/** One pod as an endpoint of a Service. */
export interface PodEndpoint {
  readonly ip: string;
  readonly family: "IPv4" | "IPv6";
  readonly ready: boolean;
  readonly terminating: boolean;
  /** Ready ignoring termination (a slice's `serving`). */
  readonly serving: boolean;
  readonly nodeName?: string;
  readonly targetRef: { readonly kind: "Pod"; readonly namespace: string; readonly name: string; readonly uid: string };
  readonly ports: readonly EndpointPort[];
}

function podReady(pod: ApiObject): boolean {
  const conditions = record(pod["status"])["conditions"];
  return (
    Array.isArray(conditions) && conditions.some((condition) => isPlainObject(condition) && condition["type"] === "Ready" && condition["status"] === "True")
  );
}

/** A Service port's target on a pod: a number, or a named container port; undefined when the pod has no such port. */
function resolvePort(servicePort: Record<string, unknown>, pod: ApiObject): number | undefined {
  const target = servicePort["targetPort"] ?? servicePort["port"];
  if (typeof target === "number") return target;
  if (typeof target !== "string") return undefined;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = typeof servicePort["protocol"] === "string" ? servicePort["protocol"] : "TCP";
  const containers = record(pod["spec"])["containers"];
  for (const container of Array.isArray(containers) ? containers : []) {
    const ports = record(container)["ports"];
    for (const port of Array.isArray(ports) ? ports : []) {
      const entry = record(port);
      if (entry["name"] === target && (entry["protocol"] ?? "TCP") === protocol && typeof entry["containerPort"] === "number") return entry["containerPort"];
    }
  }
  return undefined;
}

/**
 * The pods of a Service as endpoints, as kube's endpoint controllers pick them: pods with an IP
 * (`status.podIP`) that have not finished (phase Succeeded/Failed); terminating pods only when
 * `publishNotReadyAddresses` (Endpoints) or for slices (`includeTerminating`). Readiness is the
 * pod's Ready condition, or always true with `publishNotReadyAddresses`.
 */
export function podEndpoints(service: ApiObject, pods: readonly ApiObject[], options: { readonly includeTerminating: boolean }): PodEndpoint[] {
  const selector = selectorOf(service);
  if (selector === undefined) return [];
  const spec = record(service["spec"]);
  const publishNotReady = spec["publishNotReadyAddresses"] === true;
  const servicePorts = (Array.isArray(spec["ports"]) ? spec["ports"] : []).map(record);
  const out: PodEndpoint[] = [];
  for (const pod of pods) {
    if (pod.metadata.namespace !== service.metadata.namespace || !matches(selector, pod)) continue;
    const status = record(pod["status"]);
    const ip = typeof status["podIP"] === "string" ? status["podIP"] : "";
    const family = isIP(ip);
    if (family === 0 || status["phase"] === "Succeeded" || status["phase"] === "Failed") continue;
    const terminating = pod.metadata.deletionTimestamp !== undefined;
    if (terminating && !publishNotReady && !options.includeTerminating) continue;
    const serving = publishNotReady || podReady(pod);
    const ports: EndpointPort[] = [];
    for (const servicePort of servicePorts) {
      const port = resolvePort(servicePort, pod);
      if (port === undefined) continue;
      ports.push({
        ...(typeof servicePort["name"] === "string" && servicePort["name"] !== "" ? { name: servicePort["name"] } : {}),
        port,
        protocol: typeof servicePort["protocol"] === "string" ? servicePort["protocol"] : "TCP",
        ...(typeof servicePort["appProtocol"] === "string" ? { appProtocol: servicePort["appProtocol"] } : {}),
      });
    }
    const nodeName = record(pod["spec"])["nodeName"];
    out.push({
      ip,
      family: family === 6 ? "IPv6" : "IPv4",
      ready: serving && (!terminating || publishNotReady),
      serving,
      terminating,
      ...(typeof nodeName === "string" && nodeName !== "" ? { nodeName } : {}),
      targetRef: { kind: "Pod", namespace: pod.metadata.namespace ?? "", name: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" },
      ports,
    });
  }
  return out.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
}

/** Groups items by the canonical text of their ports, keeping the first-seen order of groups. */
export function groupByPorts<T extends { readonly ports: readonly EndpointPort[] }>(items: readonly T[]): { ports: readonly EndpointPort[]; items: T[] }[] {
  const groups = new Map<string, { ports: readonly EndpointPort[]; items: T[] }>();
  for (const item of items) {
    const key = JSON.stringify([...item.ports].sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "") || a.port - b.port));
    const group = groups.get(key) ?? { ports: item.ports, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  return [...groups.values()];
}
