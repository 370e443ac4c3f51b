import { apiServiceName, builtinApiServicePriority, CUSTOM_RESOURCE_PRIORITY } from "../../api/apiservice.js";
import type { Profile } from "../../api/profile.js";
import type { Registry } from "../../registry/index.js";
import type { AggregatedApis, AggregatedVersion } from "./aggregated-apis.js";
import type { BackendDiscovery } from "./backend-discovery.js";

/** What discovery needs to list aggregated groups among the server's own. */
export interface Aggregation {
  readonly apis: AggregatedApis;
  readonly backends: BackendDiscovery;
  readonly profile: Profile;
}

/** A group as discovery lists it: the server's own versions, then aggregated ones. */
export interface ServedGroup {
  readonly name: string;
  readonly local: readonly string[];
  readonly aggregated: readonly AggregatedVersion[];
}

/**
 * Every group in kube's discovery order: the server's own in their served order, and each
 * aggregated group placed by its group priority among them (a built-in group ranks by kube's
 * priority table, a custom resource group at 1000; ties go by APIService name, as kube sorts). An
 * aggregated version of a group the server serves itself is listed after the group's own versions.
 */
export function servedGroups(registry: Registry, aggregation: Aggregation | undefined): ServedGroup[] {
  const local = [...registry.groups()].map(([name, versions]): ServedGroup => ({ name, local: versions, aggregated: [] }));
  if (aggregation === undefined) return local;
  const aggregatedGroups = aggregation.apis.groups();
  if (aggregatedGroups.length === 0) return local;
  const byName = new Map(local.map((group, index) => [group.name, index]));
  const rank = (group: ServedGroup): { priority: number; leader: string } => {
    const version = group.local[0] ?? "";
    const priority = builtinApiServicePriority(aggregation.profile, group.name, version) ?? CUSTOM_RESOURCE_PRIORITY;
    return { priority: priority.group, leader: apiServiceName(group.name, version) };
  };
  const out = [...local];
  let from = 0;
  for (const group of aggregatedGroups) {
    const shared = byName.get(group.name);
    if (shared !== undefined) {
      const index = out.findIndex((entry) => entry.name === group.name);
      const entry = out[index];
      if (entry !== undefined) out[index] = { ...entry, aggregated: group.versions };
      continue;
    }
    let at = from;
    while (at < out.length) {
      const entry = out[at];
      if (entry === undefined || entry.aggregated.length > 0) {
        at += 1;
        continue;
      }
      const { priority, leader } = rank(entry);
      if (priority < group.priority || (priority === group.priority && leader > group.leader)) break;
      at += 1;
    }
    out.splice(at, 0, { name: group.name, local: [], aggregated: group.versions });
    from = at + 1;
  }
  return out;
}
