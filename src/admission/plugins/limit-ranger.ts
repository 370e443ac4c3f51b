import type { ApiObject } from "../../api/object.js";
import { aggregate, denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";
import { amount, formatRatio } from "./quantities.js";
import { podResources, resourceListOf } from "./pod-resources.js";
import { resourceReader } from "./reads.js";
import { appContainersOf, containersOf, isPod, listOf, objectAt, recordOf, specOf, stringOf, type Record_ } from "./pod-spec.js";

const LIMIT_RANGES = { group: "", version: "v1", plural: "limitranges" };
/** A cluster-scoped object's ranges: none. */
const NO_RANGES: readonly ApiObject[] = Object.freeze([]);

/** A LimitRange item with kube's defaulting (SetDefaults_LimitRangeItem): max → default → defaultRequest; min → defaultRequest. */
function effectiveItem(item: Record_): Record_ {
  if (stringOf(item["type"]) !== "Container") return item;
  const defaults = { ...recordOf(item["default"]) };
  const defaultRequest = { ...recordOf(item["defaultRequest"]) };
  for (const [key, value] of Object.entries(recordOf(item["max"]))) if (!(key in defaults)) defaults[key] = value;
  for (const [key, value] of Object.entries(defaults)) if (!(key in defaultRequest)) defaultRequest[key] = value;
  for (const [key, value] of Object.entries(recordOf(item["min"]))) if (!(key in defaultRequest)) defaultRequest[key] = value;
  return { ...item, default: defaults, defaultRequest };
}

function itemsOf(ranges: readonly ApiObject[], type: string): Record_[] {
  return ranges
    .flatMap((range) => listOf(recordOf(range["spec"])["limits"]))
    .filter((item) => stringOf(item["type"]) === type)
    .map(effectiveItem);
}

/**
 * Fills each container's missing requests and limits from the Container items' defaults, and
 * returns kube's account of what it set (the `<keyDomain>/limit-ranger` annotation's value:
 * `LimitRanger plugin set: cpu, memory request for container c; …; cpu limit for init container i`,
 * app containers first), or undefined when it set nothing.
 */
function applyDefaults(pod: ApiObject, items: readonly Record_[]): string | undefined {
  const spec = specOf(pod);
  const notes: string[] = [];
  const fill = (container: Record_, what: string): void => {
    const resources = objectAt(container, "resources");
    const set = { requests: new Set<string>(), limits: new Set<string>() };
    for (const item of items) {
      for (const [field, source] of [
        ["limits", "default"],
        ["requests", "defaultRequest"],
      ] as const) {
        const defaults = recordOf(item[source]);
        if (Object.keys(defaults).length === 0) continue;
        const target = objectAt(resources, field);
        for (const [name, value] of Object.entries(defaults)) {
          if (target[name] !== undefined) continue;
          target[name] = value;
          set[field].add(name);
        }
      }
    }
    const name = stringOf(container["name"]);
    if (set.requests.size > 0) notes.push(`${[...set.requests].sort().join(", ")} request for ${what} ${name}`);
    if (set.limits.size > 0) notes.push(`${[...set.limits].sort().join(", ")} limit for ${what} ${name}`);
  };
  for (const container of appContainersOf(spec)) fill(container, "container");
  for (const container of listOf(spec["initContainers"])) fill(container, "init container");
  return notes.length === 0 ? undefined : `LimitRanger plugin set: ${notes.join("; ")}`;
}

/** Checks requests/limits against min, max and maxLimitRequestRatio; `kind` is `Container`, `Pod` or `PersistentVolumeClaim`. */
function check(kind: string, item: Record_, requests: Record_, limits: Record_, problems: string[]): void {
  for (const [name, bound] of Object.entries(recordOf(item["min"]))) {
    const minimum = amount(bound);
    if (minimum === undefined) continue;
    const request = amount(requests[name]);
    const limit = amount(limits[name]);
    if (request === undefined && kind !== "PersistentVolumeClaim" && limit === undefined)
      problems.push(`minimum ${name} usage per ${kind} is ${String(bound)}.  No request is specified`);
    else if (request !== undefined && request < minimum)
      problems.push(`minimum ${name} usage per ${kind} is ${String(bound)}, but request is ${String(requests[name])}`);
    else if (limit !== undefined && limit < minimum)
      problems.push(`minimum ${name} usage per ${kind} is ${String(bound)}, but limit is ${String(limits[name])}`);
  }
  for (const [name, bound] of Object.entries(recordOf(item["max"]))) {
    const maximum = amount(bound);
    if (maximum === undefined) continue;
    const request = amount(requests[name]);
    const limit = amount(limits[name]);
    if (kind === "PersistentVolumeClaim") {
      if (request !== undefined && request > maximum)
        problems.push(`maximum ${name} usage per ${kind} is ${String(bound)}, but request is ${String(requests[name])}`);
      continue;
    }
    if (limit === undefined) problems.push(`maximum ${name} usage per ${kind} is ${String(bound)}.  No limit is specified`);
    else if (limit > maximum) problems.push(`maximum ${name} usage per ${kind} is ${String(bound)}, but limit is ${String(limits[name])}`);
    else if (request !== undefined && request > maximum)
      problems.push(`maximum ${name} usage per ${kind} is ${String(bound)}, but request is ${String(requests[name])}`);
  }
  for (const [name, bound] of Object.entries(recordOf(item["maxLimitRequestRatio"]))) {
    const ratio = amount(bound);
    const request = amount(requests[name]);
    const limit = amount(limits[name]);
    if (ratio === undefined || limit === undefined) continue;
    if (request === undefined || request === 0) {
      problems.push(`${name} max limit to request ratio per ${kind} is ${String(bound)}, but no request is specified or request is 0`);
      continue;
    }
    if (limit / request > ratio)
      problems.push(`${name} max limit to request ratio per ${kind} is ${String(bound)}, but provided ratio is ${formatRatio(limit / request)}`);
  }
}

/**
 * LimitRanger: on pod create, fills containers' missing requests and limits from the namespace's
 * LimitRanges (Container items' `default` and `defaultRequest`), noting what it set in the
 * `<keyDomain>/limit-ranger` annotation as kube does, then enforces `min`, `max` and
 * `maxLimitRequestRatio` per Container and per Pod on create and update; PersistentVolumeClaim
 * items bound `spec.resources.requests.storage`. Violations are 403 listing every one, as kube.
 */
export function limitRanger(context: PluginContext): AdmissionPlugin {
  // The ranges mutate read for an object, reused by validate on the same object (one list per
  // create). A namespace without ranges (most) is not remembered: validate's own read is the
  // lister's kept list, and a WeakMap entry per pod costs more than that read.
  const readFor = new WeakMap<ApiObject, readonly ApiObject[]>();
  const limitRanges = resourceReader(context, LIMIT_RANGES);
  const annotation = `${context.profile.keyDomain}/limit-ranger`;
  /** The ranges without waiting: remembered for the object, or the cache's list when it needs no wait; undefined: call rangesIn. */
  function rangesNow(namespace: string, object?: ApiObject): readonly ApiObject[] | undefined {
    if (namespace === "") return NO_RANGES;
    const known = object === undefined ? undefined : readFor.get(object);
    if (known !== undefined) return known;
    const ranges = limitRanges.listNow(namespace);
    if (ranges !== undefined && object !== undefined && ranges.length > 0) readFor.set(object, ranges);
    return ranges;
  }
  async function rangesIn(namespace: string, object?: ApiObject): Promise<readonly ApiObject[]> {
    const ranges = await limitRanges.list(namespace);
    if (object !== undefined && ranges.length > 0) readFor.set(object, ranges);
    return ranges;
  }

  function mutateWith(object: ApiObject, ranges: readonly ApiObject[]): void {
    const items = itemsOf(ranges, "Container");
    if (items.length === 0) return;
    const note = applyDefaults(object, items);
    if (note !== undefined) {
      const metadata = object.metadata;
      metadata.annotations = { ...metadata.annotations, [annotation]: note };
    }
  }

  function validateWith(attributes: AdmissionAttributes, object: ApiObject, ranges: readonly ApiObject[]): void {
    if (ranges.length === 0) return;
    const problems: string[] = [];
    if (attributes.resource.resource === "persistentvolumeclaims") {
      const resources = recordOf(recordOf(object["spec"])["resources"]);
      for (const item of itemsOf(ranges, "PersistentVolumeClaim"))
        check("PersistentVolumeClaim", item, recordOf(resources["requests"]), recordOf(resources["limits"]), problems);
    } else {
      const containers = containersOf(specOf(object));
      for (const item of itemsOf(ranges, "Container")) {
        for (const container of containers) {
          const resources = recordOf(container["resources"]);
          check("Container", item, recordOf(resources["requests"]), recordOf(resources["limits"]), problems);
        }
      }
      const pod = itemsOf(ranges, "Pod");
      if (pod.length > 0) {
        // The pod's requests and limits as kube's LimitRanger sums them (init steps, sidecars; no overhead), in kube's text.
        const requests = resourceListOf(podResources(specOf(object), "requests", { overhead: false }));
        const limits = resourceListOf(podResources(specOf(object), "limits", { overhead: false }));
        for (const item of pod) check("Pod", item, requests, limits, problems);
      }
    }
    if (problems.length > 0) throw denied(attributes, aggregate(problems));
  }

  return {
    name: "LimitRanger",
    resources: new Set(["pods", "persistentvolumeclaims"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    // Both steps finish synchronously when the cache needs no wait (no promise on a pod create).
    mutate(attributes: AdmissionAttributes) {
      const object = attributes.object;
      if (attributes.operation !== "CREATE" || !isPod(attributes) || object === undefined) return;
      const ranges = rangesNow(attributes.namespace, object);
      if (ranges !== undefined) return mutateWith(object, ranges);
      return rangesIn(attributes.namespace, object).then((listed) => mutateWith(object, listed));
    },
    validate(attributes: AdmissionAttributes) {
      const object = attributes.object;
      if (object === undefined || attributes.subresource !== "" || attributes.resource.group !== "") return;
      // Pods are checked on create only: their resources are immutable (kube skips updates too).
      if (attributes.resource.resource === "pods" && attributes.operation !== "CREATE") return;
      const ranges = rangesNow(attributes.namespace, object);
      if (ranges !== undefined) return validateWith(attributes, object, ranges);
      return rangesIn(attributes.namespace, object).then((listed) => validateWith(attributes, object, listed));
    },
  };
}
