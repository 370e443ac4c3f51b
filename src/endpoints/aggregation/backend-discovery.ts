import { isPlainObject } from "../../api/object.js";
import type { UserInfo } from "../../request/context.js";
import type { AggregatedApis, AggregatedVersion } from "./aggregated-apis.js";
import { backendRequest, type ProxyClient } from "./backend-request.js";

/** One version's resources as aggregated discovery lists them; `current` false once a refresh failed (kube's Stale). */
export interface BackendResources {
  readonly resources: readonly Record<string, unknown>[];
  readonly current: boolean;
}

/**
 * Aggregated servers' discovery as this server's aggregated discovery document includes it (kube's
 * discovery manager): each available aggregated version's APIResourceList, fetched when its
 * APIService changes. A version not fetched, or whose last fetch failed, is listed Stale.
 */
export interface BackendDiscovery {
  resourcesOf(group: string, version: string): BackendResources | undefined;
  onChange(listener: () => void): () => void;
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** An APIResourceList's entries as aggregated discovery's resources (sub-resources under their parents). */
export function discoveryResources(list: Record<string, unknown>, group: string, version: string): Record<string, unknown>[] {
  const entries = Array.isArray(list["resources"]) ? list["resources"].map(record) : [];
  const kindOf = (entry: Record<string, unknown>) => ({
    group: typeof entry["group"] === "string" ? entry["group"] : group,
    version: typeof entry["version"] === "string" ? entry["version"] : version,
    kind: String(entry["kind"] ?? ""),
  });
  const parents = new Map<string, Record<string, unknown>>();
  for (const entry of entries) {
    const name = String(entry["name"] ?? "");
    if (name === "" || name.includes("/")) continue;
    const resource: Record<string, unknown> = {
      resource: name,
      responseKind: kindOf(entry),
      scope: entry["namespaced"] === true ? "Namespaced" : "Cluster",
      singularResource: String(entry["singularName"] ?? ""),
      verbs: Array.isArray(entry["verbs"]) ? entry["verbs"] : [],
    };
    if (Array.isArray(entry["shortNames"]) && entry["shortNames"].length > 0) resource["shortNames"] = entry["shortNames"];
    if (Array.isArray(entry["categories"]) && entry["categories"].length > 0) resource["categories"] = entry["categories"];
    parents.set(name, resource);
  }
  for (const entry of entries) {
    const [parent = "", subresource] = String(entry["name"] ?? "").split("/");
    const owner = parents.get(parent);
    if (subresource === undefined || owner === undefined) continue;
    const subresources = Array.isArray(owner["subresources"]) ? (owner["subresources"] as unknown[]) : [];
    owner["subresources"] = [...subresources, { subresource, responseKind: kindOf(entry), verbs: Array.isArray(entry["verbs"]) ? entry["verbs"] : [] }];
  }
  return [...parents.values()];
}

async function fetchList(target: AggregatedVersion, user: UserInfo, client: ProxyClient | undefined): Promise<Record<string, unknown>> {
  const path = `/apis/${target.view.group}/${target.view.version}`;
  const response = await backendRequest(target, { method: "GET", path, headers: { accept: "application/json" }, user, timeoutMs: 5000 }, client);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) >= 300) throw new Error(`bad status ${response.statusCode ?? 0} from ${path}`);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  return record(parsed);
}

export function createBackendDiscovery(apis: AggregatedApis, options: { readonly user: UserInfo; readonly client?: ProxyClient }): BackendDiscovery {
  const fetched = new Map<string, BackendResources>();
  /** The APIService state each entry was fetched for (name, availability): a change fetches again. */
  const fetchedFor = new Map<string, string>();
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const listener of listeners) listener();
  };

  const refresh = (): void => {
    const seen = new Set<string>();
    for (const group of apis.groups()) {
      for (const target of group.versions) {
        const key = `${target.view.group}/${target.view.version}`;
        seen.add(key);
        const state = `${target.view.name}\n${target.view.available}\n${JSON.stringify(target.view.backend)}`;
        if (fetchedFor.get(key) === state) continue;
        fetchedFor.set(key, state);
        const kept = fetched.get(key);
        if (!target.view.available) {
          if (kept !== undefined) fetched.set(key, { ...kept, current: false });
          continue;
        }
        fetchList(target, options.user, options.client).then(
          (list) => {
            if (fetchedFor.get(key) !== state) return;
            fetched.set(key, { resources: discoveryResources(list, target.view.group, target.view.version), current: true });
            notify();
          },
          () => {
            if (fetchedFor.get(key) !== state) return;
            const previous = fetched.get(key);
            if (previous !== undefined) fetched.set(key, { ...previous, current: false });
            notify();
          },
        );
      }
    }
    for (const key of [...fetchedFor.keys()]) {
      if (seen.has(key)) continue;
      fetchedFor.delete(key);
      fetched.delete(key);
    }
  };
  apis.onChange(refresh);
  refresh();

  return {
    resourcesOf: (group, version) => fetched.get(`${group}/${version}`),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
