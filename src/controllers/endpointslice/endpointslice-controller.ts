import type { ApiClient } from "../../api/client.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { servicesSelecting } from "../endpoint/endpoint-controller.js";
import { objectKey, splitKey, type InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { ENDPOINT_POD_VIEW, groupByPorts, PODS, podEndpoints, SERVICES, selectorOf, type EndpointNames, type PodEndpoint } from "../endpoint/service-pods.js";
import { desiredSlices, sliceOwnerOf, syncSlices, type SliceGroup } from "./slices.js";

export interface EndpointSliceControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly names: EndpointNames;
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
  // kube's reconciler keeps one placeholder slice (no endpoints, no ports, the Service's primary family) for a Service with none.
  if (groups.length === 0) {
    const families = isPlainObject(service["spec"]) ? service["spec"]["ipFamilies"] : undefined;
    groups.push({ addressType: Array.isArray(families) && families[0] === "IPv6" ? "IPv6" : "IPv4", ports: [], endpoints: [] });
  }
  return desiredSlices(sliceOwnerOf(service, "Service", names.sliceManager, names), groups, names);
}

/**
 * kube-controller-manager's `endpointslice`: the EndpointSlices of every Service with a selector
 * (label `<keyDomain>/service-name`, managed-by `endpointslice-controller.<apiDomain>`, owned by
 * the Service), each pod an endpoint with `ready`/`serving`/`terminating` conditions; slices of
 * Services gone are deleted. A selector-less Service's slices (the server's own carries this
 * manager's label) are left to their writer. Keys are Services' `namespace/name`: a pod change
 * wakes only the Services of its namespace that select it.
 */
export function endpointSliceController(options: EndpointSliceControllerOptions): QueueControllerSpec {
  const { client, names } = options;
  const services = options.informers.indexed(SERVICES);
  const pods = options.informers.indexed(PODS, ENDPOINT_POD_VIEW);
  const slices = options.informers.indexed(names.endpointSlices);
  const ours = (slice: ApiObject): boolean => slice.metadata.labels?.[names.managedByLabel] === names.sliceManager;
  const sliceKey = (slice: ApiObject): string => `${slice.metadata.namespace ?? ""}/${slice.metadata.labels?.[names.serviceNameLabel] ?? ""}`;

  function* everything(): Iterable<string> {
    for (const service of services.list()) if (selectorOf(service) !== undefined) yield objectKey(service);
    for (const slice of slices.list()) if (ours(slice)) yield sliceKey(slice);
  }

  async function reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const service = services.get(namespace, name);
    // A selector-less Service's slices are not ours to write or remove.
    if (service !== undefined && selectorOf(service) === undefined) return;
    const existing = slices.listNamespace(namespace).filter((slice) => ours(slice) && slice.metadata.labels?.[names.serviceNameLabel] === name);
    const desired = new Map<string, ApiObject>();
    if (service !== undefined) {
      for (const [sliceName, slice] of serviceSlices(service, pods.listNamespace(namespace), names)) desired.set(`${namespace}/${sliceName}`, slice);
    }
    await syncSlices(client, names, existing, desired);
  }

  return {
    name: "endpointslice",
    watch(queue) {
      const onService = (service: ApiObject): void => queue.add(objectKey(service));
      const onPod = (pod: ApiObject, previous?: ApiObject): void => {
        for (const key of servicesSelecting(services, pod, previous)) queue.add(key);
      };
      const onSlice = (slice: ApiObject): void => {
        if (ours(slice)) queue.add(sliceKey(slice));
      };
      const all = (): void => {
        for (const key of everything()) queue.add(key);
      };
      const off = [
        services.addHandlers({ onAdd: onService, onUpdate: onService, onDelete: onService, onReset: all }),
        pods.addHandlers({ onAdd: (pod) => onPod(pod), onUpdate: onPod, onDelete: (pod) => onPod(pod), onReset: all }),
        slices.addHandlers({ onUpdate: onSlice, onDelete: onSlice, onReset: all }),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    initialKeys: everything,
    reconcile,
  };
}
