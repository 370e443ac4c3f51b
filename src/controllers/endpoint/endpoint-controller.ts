import type { ApiClient } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { Controller } from "../controller.js";
import { followAndReconcile } from "../follow.js";
import { ENDPOINTS, groupByPorts, PODS, podEndpoints, SERVICES, selectorOf, type EndpointNames, type PodEndpoint } from "./service-pods.js";
import { truncateSubsets } from "./truncate.js";

export interface EndpointControllerOptions {
  readonly client: ApiClient;
  readonly names: EndpointNames;
  readonly onError?: (error: unknown) => void;
}

function address(endpoint: PodEndpoint): Record<string, unknown> {
  return { ip: endpoint.ip, ...(endpoint.nodeName === undefined ? {} : { nodeName: endpoint.nodeName }), targetRef: endpoint.targetRef };
}

/** The Endpoints kube's controller would write for a Service with a selector, from the pods given. */
export function desiredEndpoints(service: ApiObject, pods: readonly ApiObject[], names: EndpointNames): ApiObject {
  const endpoints = podEndpoints(service, pods, { includeTerminating: false });
  const subsets = groupByPorts(endpoints).map((group) => ({
    addresses: group.items.filter((endpoint) => endpoint.ready).map(address),
    notReadyAddresses: group.items.filter((endpoint) => !endpoint.ready).map(address),
    ports: group.ports,
  }));
  const cut = truncateSubsets<Record<string, unknown>, (typeof subsets)[number]>(subsets);
  const spec = isPlainObject(service["spec"]) ? service["spec"] : {};
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}), [names.skipMirrorLabel]: "true" };
  if (spec["clusterIP"] === "None") labels[names.headlessLabel] = "";
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: service.metadata.name ?? "",
      namespace: service.metadata.namespace ?? "",
      labels,
      ...(cut.truncated ? { annotations: { [names.overCapacityAnnotation]: "truncated" } } : {}),
    },
    subsets: cut.subsets.map((subset) => ({
      ...(subset.addresses.length > 0 ? { addresses: subset.addresses } : {}),
      ...(subset.notReadyAddresses.length > 0 ? { notReadyAddresses: subset.notReadyAddresses } : {}),
      ...(subset.ports.length > 0 ? { ports: subset.ports } : {}),
    })),
  };
}

/**
 * kube-controller-manager's `endpoint`: every Service with a selector has an Endpoints of its
 * name listing its pods' IPs (ready ones in `addresses`, others in `notReadyAddresses`, grouped
 * by resolved ports), cut to 1,000 addresses with the over-capacity annotation. Endpoints it wrote
 * (the skip-mirror label) are deleted when their Service goes or loses its selector; Services
 * without a selector (the server's own among them) are left alone.
 */
export function endpointController(options: EndpointControllerOptions): Controller {
  const { client, names } = options;

  async function reconcile(): Promise<void> {
    const [services, pods, existing] = await Promise.all([client.list(SERVICES, ""), client.list(PODS, ""), client.list(ENDPOINTS, "")]);
    const byKey = new Map(existing.items.map((object) => [`${object.metadata.namespace}/${object.metadata.name}`, object]));
    const selected = new Set<string>();
    for (const service of services.items) {
      if (selectorOf(service) === undefined) continue;
      const key = `${service.metadata.namespace}/${service.metadata.name}`;
      selected.add(key);
      const desired = desiredEndpoints(service, pods.items, names);
      const current = byKey.get(key);
      if (
        current !== undefined &&
        canonicalJson(current["subsets"] ?? []) === canonicalJson(desired["subsets"]) &&
        canonicalJson(current.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels ?? {}) &&
        current.metadata.annotations?.[names.overCapacityAnnotation] === desired.metadata.annotations?.[names.overCapacityAnnotation]
      )
        continue;
      const annotations = { ...(current?.metadata.annotations ?? {}) };
      delete annotations[names.overCapacityAnnotation];
      Object.assign(annotations, desired.metadata.annotations ?? {});
      const metadata = { ...(current?.metadata ?? {}), ...desired.metadata, annotations };
      await write(() => client.update(ENDPOINTS, service.metadata.namespace ?? "", service.metadata.name ?? "", { ...desired, metadata }));
    }
    for (const [key, object] of byKey) {
      if (selected.has(key) || object.metadata.labels?.[names.skipMirrorLabel] !== "true") continue;
      await write(() =>
        client.delete(ENDPOINTS, object.metadata.namespace ?? "", object.metadata.name ?? "", { preconditions: { uid: object.metadata.uid ?? "" } }),
      );
    }
  }

  return {
    name: "endpoint",
    run: (signal) => followAndReconcile(client, [SERVICES, PODS, ENDPOINTS], signal, { reconcile, onError: options.onError }),
  };
}

/** Runs a write; a conflict or a vanished object is settled by the next pass the watch brings. */
export async function write(action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
  }
}
