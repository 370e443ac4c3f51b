import { cloneObject, isPlainObject, type ApiObject } from "../../api/object.js";
import type { StoredAs } from "../definition.js";

function withTypeMeta(object: ApiObject, apiVersion: string, kind: string): ApiObject {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = object;
  return { apiVersion, kind, metadata, ...rest };
}

function apiVersion(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/**
 * A version whose fields match its storage version's (deprecated betas such as batch/v1beta1
 * CronJob): conversion rewrites only apiVersion.
 */
export function sameShape(served: { group: string; version: string; kind: string }, stored: { group: string; version: string; plural: string }): StoredAs {
  return {
    ...stored,
    toStorage: (object) => withTypeMeta(cloneObject(object), apiVersion(stored.group, stored.version), served.kind),
    fromStorage: (object) => withTypeMeta(cloneObject(object), apiVersion(served.group, served.version), served.kind),
  };
}

/** Moves `from` to `to` on a shallow copy when present. */
function rename(object: Record<string, unknown>, from: string, to: string): void {
  if (object[from] === undefined) return;
  object[to] = object[from];
  delete object[from];
}

/** events.<apiDomain>/v1 (or v1beta1) Event ↔ core v1 Event (the storage version): renamed fields, same data. */
/** events v1 field selectors and the core Event labels they stand for, as kube converts them. */
const EVENTS_FIELD_LABELS: ReadonlyMap<string, string> = new Map([
  ...["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"].map((field): [string, string] => [
    `regarding.${field}`,
    `involvedObject.${field}`,
  ]),
  ["reportingController", "reportingComponent"],
  ["reason", "reason"],
  ["type", "type"],
]);

/** The field selectors events v1 (and v1beta1) declare: the served names with the paths they read. */
export const EVENTS_V1_SELECTABLE_FIELDS: readonly string[] = [...EVENTS_FIELD_LABELS.keys()];

export function eventsV1StoredAsCore(eventsGroup: string, version = "v1"): StoredAs {
  const renames: readonly (readonly [string, string])[] = [
    ["regarding", "involvedObject"],
    ["note", "message"],
    ["reportingController", "reportingComponent"],
    ["deprecatedSource", "source"],
    ["deprecatedFirstTimestamp", "firstTimestamp"],
    ["deprecatedLastTimestamp", "lastTimestamp"],
    ["deprecatedCount", "count"],
  ];
  return {
    group: "",
    version: "v1",
    plural: "events",
    fieldLabels: EVENTS_FIELD_LABELS,
    // The Go zeros differ between the two shapes (go-zeros.ts): core's reporting strings have no
    // omitempty, events' do; events' series count has none, core's does.
    toStorage(object) {
      const copy = cloneObject(object) as Record<string, unknown>;
      for (const [from, to] of renames) rename(copy, from, to);
      for (const name of ["reportingComponent", "reportingInstance"]) copy[name] ??= "";
      if (isPlainObject(copy["series"]) && copy["series"]["count"] === 0) delete copy["series"]["count"];
      return withTypeMeta(copy as ApiObject, "v1", "Event");
    },
    fromStorage(object) {
      const copy = cloneObject(object) as Record<string, unknown>;
      for (const [to, from] of renames) rename(copy, from, to);
      for (const name of ["reportingController", "reportingInstance"]) if (copy[name] === "") delete copy[name];
      if (isPlainObject(copy["series"])) copy["series"]["count"] ??= 0;
      return withTypeMeta(copy as ApiObject, `${eventsGroup}/${version}`, "Event");
    },
  };
}

/**
 * discovery v1beta1 EndpointSlice ↔ v1 (the storage version), as kube converts them: v1beta1's
 * `topology` map holds v1's `zone` under the zone label and `nodeName` under the hostname label;
 * other keys live in v1's `deprecatedTopology`. A hostname label that differs from nodeName is
 * kept in deprecatedTopology, so both directions are lossless.
 */
export function endpointSliceV1beta1StoredAsV1(discoveryGroup: string, keyDomain: string): StoredAs {
  const zoneKey = `topology.${keyDomain}/zone`;
  const hostnameKey = `${keyDomain}/hostname`;
  const eachEndpoint = (object: ApiObject, convert: (endpoint: Record<string, unknown>) => void): ApiObject => {
    const copy = cloneObject(object);
    const endpoints = copy["endpoints"];
    if (Array.isArray(endpoints)) for (const endpoint of endpoints) if (isPlainObject(endpoint)) convert(endpoint);
    return copy;
  };
  return {
    group: discoveryGroup,
    version: "v1",
    plural: "endpointslices",
    toStorage: (object) =>
      withTypeMeta(
        eachEndpoint(object, (endpoint) => {
          const topology = endpoint["topology"];
          delete endpoint["topology"];
          if (!isPlainObject(topology)) return;
          const rest: Record<string, unknown> = { ...topology };
          if (typeof rest[zoneKey] === "string") {
            endpoint["zone"] = rest[zoneKey];
            delete rest[zoneKey];
          }
          if (rest[hostnameKey] !== undefined && rest[hostnameKey] === endpoint["nodeName"]) delete rest[hostnameKey];
          if (Object.keys(rest).length > 0) endpoint["deprecatedTopology"] = rest;
        }),
        `${discoveryGroup}/v1`,
        "EndpointSlice",
      ),
    fromStorage: (object) =>
      withTypeMeta(
        eachEndpoint(object, (endpoint) => {
          const deprecated = endpoint["deprecatedTopology"];
          const zone = endpoint["zone"];
          const nodeName = endpoint["nodeName"];
          delete endpoint["deprecatedTopology"];
          delete endpoint["zone"];
          if (deprecated === undefined && zone === undefined && nodeName === undefined) return;
          const topology: Record<string, unknown> = isPlainObject(deprecated) ? { ...deprecated } : {};
          if (zone !== undefined) topology[zoneKey] = zone;
          if (nodeName !== undefined && (topology[hostnameKey] === undefined || topology[hostnameKey] === "")) topology[hostnameKey] = nodeName;
          endpoint["topology"] = topology;
        }),
        `${discoveryGroup}/v1beta1`,
        "EndpointSlice",
      ),
  };
}

/** Metadata with these annotations, or without the field when there are none. */
function withAnnotations(metadata: ApiObject["metadata"], annotations: Record<string, string>): ApiObject["metadata"] {
  const { annotations: _previous, ...rest } = metadata;
  return Object.keys(annotations).length === 0 ? rest : { ...rest, annotations };
}

/**
 * autoscaling/v1 HorizontalPodAutoscaler ↔ autoscaling/v2 (the storage version). v1 has only a CPU
 * utilization target; everything else v2 holds travels in annotations (under `annotationPrefix`),
 * so v2 → v1 → v2 loses nothing, as kube does.
 */
export function hpaV1StoredAsV2(annotationPrefix: string): StoredAs {
  const metricsKey = `${annotationPrefix}/metrics`;
  const currentMetricsKey = `${annotationPrefix}/current-metrics`;
  const conditionsKey = `${annotationPrefix}/conditions`;
  const behaviorKey = `${annotationPrefix}/behavior`;
  const isCpuUtilization = (metric: unknown): boolean => {
    if (!isPlainObject(metric) || metric["type"] !== "Resource" || !isPlainObject(metric["resource"])) return false;
    const resource = metric["resource"];
    return resource["name"] === "cpu" && isPlainObject(resource["target"]) && resource["target"]["type"] === "Utilization";
  };
  const takeJson = (annotations: Record<string, string>, key: string): unknown => {
    const text = annotations[key];
    delete annotations[key];
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  return {
    group: "autoscaling",
    version: "v2",
    plural: "horizontalpodautoscalers",
    toStorage(object) {
      const v1 = cloneObject(object);
      const annotations = { ...(v1.metadata.annotations ?? {}) };
      const spec = isPlainObject(v1["spec"]) ? { ...v1["spec"] } : {};
      const status = isPlainObject(v1["status"]) ? { ...v1["status"] } : undefined;
      const metrics: unknown[] = [];
      const target = spec["targetCPUUtilizationPercentage"];
      delete spec["targetCPUUtilizationPercentage"];
      if (typeof target === "number")
        metrics.push({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } } });
      const extra = takeJson(annotations, metricsKey);
      if (Array.isArray(extra)) metrics.push(...extra);
      // kube stores v2 and defaults what it decodes: a v1 HPA without a CPU target (`kubectl autoscale`
      // without --cpu-percent) scales on 80% CPU, and reads back as `targetCPUUtilizationPercentage: 80`.
      spec["metrics"] =
        metrics.length > 0 ? metrics : [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
      const behavior = takeJson(annotations, behaviorKey);
      if (behavior !== undefined) spec["behavior"] = behavior;
      const currentMetrics = takeJson(annotations, currentMetricsKey);
      const conditions = takeJson(annotations, conditionsKey);
      if (status !== undefined) {
        const current: unknown[] = [];
        const cpu = status["currentCPUUtilizationPercentage"];
        delete status["currentCPUUtilizationPercentage"];
        if (typeof cpu === "number") current.push({ type: "Resource", resource: { name: "cpu", current: { averageUtilization: cpu } } });
        if (Array.isArray(currentMetrics)) current.push(...currentMetrics);
        // v2's list has no omitempty: written null when empty (as Go's nil slice).
        status["currentMetrics"] = current.length > 0 ? current : null;
        if (conditions !== undefined) status["conditions"] = conditions;
        // v2 writes currentReplicas only when not zero (omitempty), v1 always.
        if (status["currentReplicas"] === 0) delete status["currentReplicas"];
      }
      const metadata = withAnnotations(v1.metadata, annotations);
      return withTypeMeta({ ...v1, metadata, spec, ...(status === undefined ? {} : { status }) }, "autoscaling/v2", "HorizontalPodAutoscaler");
    },
    fromStorage(object) {
      const v2 = cloneObject(object);
      const annotations = { ...(v2.metadata.annotations ?? {}) };
      const spec = isPlainObject(v2["spec"]) ? { ...v2["spec"] } : {};
      const status = isPlainObject(v2["status"]) ? { ...v2["status"] } : undefined;
      const metrics = Array.isArray(spec["metrics"]) ? spec["metrics"] : [];
      delete spec["metrics"];
      const cpu = metrics.find(isCpuUtilization);
      const others = metrics.filter((metric) => metric !== cpu);
      if (isPlainObject(cpu) && isPlainObject(cpu["resource"]) && isPlainObject(cpu["resource"]["target"]))
        spec["targetCPUUtilizationPercentage"] = cpu["resource"]["target"]["averageUtilization"];
      if (others.length > 0) annotations[metricsKey] = JSON.stringify(others);
      if (spec["behavior"] !== undefined) {
        annotations[behaviorKey] = JSON.stringify(spec["behavior"]);
        delete spec["behavior"];
      }
      if (status !== undefined) {
        const current = Array.isArray(status["currentMetrics"]) ? status["currentMetrics"] : [];
        delete status["currentMetrics"];
        const currentCpu = current.find(
          (metric) =>
            isPlainObject(metric) &&
            metric["type"] === "Resource" &&
            isPlainObject(metric["resource"]) &&
            metric["resource"]["name"] === "cpu" &&
            isPlainObject(metric["resource"]["current"]) &&
            metric["resource"]["current"]["averageUtilization"] !== undefined,
        );
        const otherCurrent = current.filter((metric) => metric !== currentCpu);
        if (isPlainObject(currentCpu) && isPlainObject(currentCpu["resource"]) && isPlainObject(currentCpu["resource"]["current"]))
          status["currentCPUUtilizationPercentage"] = currentCpu["resource"]["current"]["averageUtilization"];
        if (otherCurrent.length > 0) annotations[currentMetricsKey] = JSON.stringify(otherCurrent);
        if (status["conditions"] !== undefined) {
          annotations[conditionsKey] = JSON.stringify(status["conditions"]);
          delete status["conditions"];
        }
      }
      const metadata = withAnnotations(v2.metadata, annotations);
      // v1 writes both counts even when zero (no omitempty); v2 omits a zero currentReplicas.
      const v1Status = { ...status, currentReplicas: status?.["currentReplicas"] ?? 0, desiredReplicas: status?.["desiredReplicas"] ?? 0 };
      return withTypeMeta({ ...v2, metadata, spec, status: v1Status }, "autoscaling/v1", "HorizontalPodAutoscaler");
    },
  };
}
