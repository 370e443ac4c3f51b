import type { ApiClient } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { objectKey, splitKey, type InformerFactory, type SharedInformer } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import {
  ENDPOINT_POD_VIEW,
  ENDPOINTS,
  groupByPorts,
  matches,
  PODS,
  podEndpoints,
  SERVICES,
  selectorOf,
  type EndpointNames,
  type PodEndpoint,
} from "./service-pods.js";
import { truncateSubsets } from "./truncate.js";

export interface EndpointControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly names: EndpointNames;
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
    // No addresses: no `subsets` at all, as kube's (omitempty) Endpoints read.
    ...(cut.subsets.length === 0
      ? {}
      : {
          subsets: cut.subsets.map((subset) => ({
            ...(subset.addresses.length > 0 ? { addresses: subset.addresses } : {}),
            ...(subset.notReadyAddresses.length > 0 ? { notReadyAddresses: subset.notReadyAddresses } : {}),
            ...(subset.ports.length > 0 ? { ports: subset.ports } : {}),
          })),
        }),
  };
}

/**
 * The keys (`namespace/name`) of the Services with a selector in a pod's namespace that select
 * it now or selected it before the change: the only Services a pod event can concern.
 */
export function servicesSelecting(services: SharedInformer, pod: ApiObject, previous?: ApiObject): string[] {
  const keys: string[] = [];
  for (const service of services.listNamespace(pod.metadata.namespace ?? "")) {
    const selector = selectorOf(service);
    if (selector === undefined) continue;
    if (matches(selector, pod) || (previous !== undefined && matches(selector, previous))) keys.push(objectKey(service));
  }
  return keys;
}

/**
 * kube-controller-manager's `endpoint`: every Service with a selector has an Endpoints of its
 * name listing its pods' IPs (ready ones in `addresses`, others in `notReadyAddresses`, grouped
 * by resolved ports), cut to 1,000 addresses with the over-capacity annotation. Endpoints it wrote
 * (the skip-mirror label) are deleted when their Service goes or loses its selector; Services
 * without a selector (the server's own among them) are left alone.
 * Keys are Services' `namespace/name`: a pod change wakes only the Services of its namespace that
 * select it, and a pass reads only that namespace's pods from the shared informer.
 */
export function endpointController(options: EndpointControllerOptions): QueueControllerSpec {
  const { client, names } = options;
  const services = options.informers.indexed(SERVICES);
  const pods = options.informers.indexed(PODS, ENDPOINT_POD_VIEW);
  const endpoints = options.informers.informer(ENDPOINTS);
  const ours = (object: ApiObject): boolean => object.metadata.labels?.[names.skipMirrorLabel] === "true";

  function* everything(): Iterable<string> {
    for (const service of services.list()) if (selectorOf(service) !== undefined) yield objectKey(service);
    for (const object of endpoints.list()) if (ours(object)) yield objectKey(object);
  }

  async function reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const service = services.get(namespace, name);
    const current = endpoints.get(namespace, name);
    if (service === undefined || selectorOf(service) === undefined) {
      if (current === undefined || !ours(current)) return;
      await write(() => client.delete(ENDPOINTS, namespace, name, { preconditions: { uid: current.metadata.uid ?? "" } }));
      return;
    }
    const desired = desiredEndpoints(service, pods.listNamespace(namespace), names);
    if (
      current !== undefined &&
      canonicalJson(current["subsets"] ?? []) === canonicalJson(desired["subsets"] ?? []) &&
      canonicalJson(current.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels ?? {}) &&
      current.metadata.annotations?.[names.overCapacityAnnotation] === desired.metadata.annotations?.[names.overCapacityAnnotation]
    )
      return;
    const annotations = { ...(current?.metadata.annotations ?? {}) };
    delete annotations[names.overCapacityAnnotation];
    Object.assign(annotations, desired.metadata.annotations ?? {});
    const metadata = { ...(current?.metadata ?? {}), ...desired.metadata, annotations };
    await write(() => client.update(ENDPOINTS, namespace, name, { ...desired, metadata }));
  }

  return {
    name: "endpoint",
    watch(queue) {
      const onService = (service: ApiObject): void => queue.add(objectKey(service));
      const onPod = (pod: ApiObject, previous?: ApiObject): void => {
        for (const key of servicesSelecting(services, pod, previous)) queue.add(key);
      };
      const onEndpoints = (object: ApiObject): void => queue.add(objectKey(object));
      const all = (): void => {
        for (const key of everything()) queue.add(key);
      };
      const off = [
        services.addHandlers({ onAdd: onService, onUpdate: onService, onDelete: onService, onReset: all }),
        pods.addHandlers({ onAdd: (pod) => onPod(pod), onUpdate: onPod, onDelete: (pod) => onPod(pod), onReset: all }),
        endpoints.addHandlers({ onUpdate: onEndpoints, onDelete: onEndpoints, onReset: all }),
      ];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    initialKeys: everything,
    reconcile,
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
