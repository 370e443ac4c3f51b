import { compareKubeVersions, readApiService, resolveBackend, type ApiServiceView, type BackendAddress } from "../../api/apiservice.js";
import type { ApiObject } from "../../api/object.js";
import type { ObjectFeed } from "../../authz/feed.js";

/** One group version another server answers: an APIService with a service. */
export interface AggregatedVersion {
  readonly view: ApiServiceView;
  /** Where its requests go now. */
  address(): BackendAddress;
}

/** A group with at least one aggregated version, its versions in kube's order (version priority, then kube-aware version). */
export interface AggregatedGroup {
  readonly name: string;
  /** The highest group priority among its APIServices. */
  readonly priority: number;
  /** The name of its APIService that decided its place (kube sorts groups by that APIService). */
  readonly leader: string;
  readonly versions: readonly AggregatedVersion[];
}

/**
 * The service-backed APIServices as the server routes and discovers them, kept current from the
 * APIService, Service and Endpoints feeds (the watch cache). Listeners hear every change of the
 * APIServices (registration, availability).
 */
export interface AggregatedApis {
  /** The aggregated version of a group version, or undefined when this server serves it (or nobody does). */
  find(group: string, version: string): AggregatedVersion | undefined;
  /** Groups with aggregated versions, highest priority first (ties by APIService name). */
  groups(): readonly AggregatedGroup[];
  onChange(listener: () => void): () => void;
}

export interface AggregatedApisFeeds {
  readonly apiServices: ObjectFeed;
  readonly services: ObjectFeed;
  readonly endpoints: ObjectFeed;
}

/** kube's order of APIServices: higher group priority first, then by name. */
function byGroupPriority(a: ApiServiceView, b: ApiServiceView): number {
  return b.groupPriorityMinimum - a.groupPriorityMinimum || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** kube's order of versions within a group: higher version priority first, then kube-aware version order. */
export function byVersionPriority(a: ApiServiceView, b: ApiServiceView): number {
  return b.versionPriority - a.versionPriority || compareKubeVersions(a.version, b.version);
}

export function createAggregatedApis(feeds: AggregatedApisFeeds): AggregatedApis {
  const listeners = new Set<() => void>();
  let cached: { readonly byGroupVersion: Map<string, AggregatedVersion>; readonly groups: AggregatedGroup[] } | undefined;

  const versionOf = (view: ApiServiceView): AggregatedVersion => ({
    view,
    address() {
      const backend = view.backend;
      if (backend === undefined) return { kind: "unresolved", message: "local" };
      return resolveBackend(feeds.services.get(backend.namespace, backend.name), feeds.endpoints.get(backend.namespace, backend.name), backend);
    },
  });

  const build = (): NonNullable<typeof cached> => {
    const views = [...feeds.apiServices.objects()].map((object: ApiObject) => readApiService(object)).filter((view) => view.backend !== undefined);
    const byGroupVersion = new Map<string, AggregatedVersion>();
    const groups = new Map<string, { leader: ApiServiceView; views: ApiServiceView[] }>();
    for (const view of views.sort(byGroupPriority)) {
      byGroupVersion.set(`${view.group}/${view.version}`, versionOf(view));
      const group = groups.get(view.group);
      if (group === undefined) groups.set(view.group, { leader: view, views: [view] });
      else group.views.push(view);
    }
    return {
      byGroupVersion,
      groups: [...groups].map(([name, group]) => ({
        name,
        priority: group.leader.groupPriorityMinimum,
        leader: group.leader.name,
        versions: group.views.sort(byVersionPriority).map((view) => byGroupVersion.get(`${view.group}/${view.version}`) ?? versionOf(view)),
      })),
    };
  };
  const current = (): NonNullable<typeof cached> => {
    cached ??= build();
    return cached;
  };

  feeds.apiServices.subscribe(() => {
    cached = undefined;
    for (const listener of listeners) listener();
  });

  return {
    find: (group, version) => current().byGroupVersion.get(`${group}/${version}`),
    groups: () => current().groups,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
