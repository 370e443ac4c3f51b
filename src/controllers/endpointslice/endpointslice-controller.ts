import type { ApiClient } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import { followAndReconcile } from "../follow.js";
import { groupByPorts, PODS, podEndpoints, SERVICES, selectorOf, type EndpointNames, type PodEndpoint } from "../endpoint/service-pods.js";
import { desiredSlices, sliceOwnerOf, syncSlices, type SliceGroup } from "./slices.js";

export interface EndpointSliceControllerOptions {
  readonly client: ApiClient;
  readonly names: EndpointNames;
  readonly onError?: (error: unknown) => void;
}

function sliceEndpoint(endpoint: PodEndpoint): SliceGroup["endpoints"][number] {
  return {
    addresses: [endpoint.ip],
    conditions: { ready: endpoint.ready, serving: endpoint.serving, terminating: endpoint.terminating },
    ...(endpoint.nodeName === undefined ? {} : { nodeName: endpoint.nodeName }),
    targetRef: endpoint.targetRef,
  };
}

/** The slices of one Service with a selector: its pods by address type and port set, 100 a slice. */
export function serviceSlices(service: ApiObject, pods: readonly ApiObject[], names: EndpointNames): Map<string, ApiObject> {
  const endpoints = podEndpoints(service, pods, { includeTerminating: true });
  const groups: SliceGroup[] = [];
  for (const family of ["IPv4", "IPv6"] as const) {
    for (const group of groupByPorts(endpoints.filter((endpoint) => endpoint.family === family)))
      groups.push({ addressType: family, ports: group.ports, endpoints: group.items.map(sliceEndpoint) });
  }
  return desiredSlices(sliceOwnerOf(service, "Service", names.sliceManager, names), groups, names);
}

/**
 * kube-controller-manager's `endpointslice`: the EndpointSlices of every Service with a selector
 * (label `<keyDomain>/service-name`, managed-by `endpointslice-controller.<apiDomain>`, owned by
 * the Service), each pod an endpoint with `ready`/`serving`/`terminating` conditions; slices of
 * Services gone or without a selector are deleted. The server's own Service has no selector and
 * its slice another manager's label, so it is left to its reconciler.
 */
export function endpointSliceController(options: EndpointSliceControllerOptions): Controller {
  const { client, names } = options;
  async function reconcile(): Promise<void> {
    const [services, pods] = await Promise.all([client.list(SERVICES, ""), client.list(PODS, "")]);
    const desired = new Map<string, ApiObject>();
    const withoutSelector = new Set<string>();
    for (const service of services.items) {
      if (selectorOf(service) === undefined) {
        withoutSelector.add(`${service.metadata.namespace}/${service.metadata.name}`);
        continue;
      }
      for (const [name, slice] of serviceSlices(service, pods.items, names)) desired.set(`${service.metadata.namespace}/${name}`, slice);
    }
    // A selector-less Service's slices (the server's own carries this manager's label) are not ours to remove.
    await syncSlices(client, names, names.sliceManager, desired, (slice) =>
      withoutSelector.has(`${slice.metadata.namespace}/${slice.metadata.labels?.[names.serviceNameLabel] ?? ""}`),
    );
  }
  return {
    name: "endpointslice",
    run: (signal) => followAndReconcile(client, [SERVICES, PODS, names.endpointSlices], signal, { reconcile, onError: options.onError }),
  };
}
