import { isIP } from "node:net";
import type { ApiClient } from "../../api/client.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import { objectKey, splitKey, type InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import { ENDPOINTS, SERVICES, selectorOf, type EndpointNames, type EndpointPort } from "../endpoint/service-pods.js";
import { desiredSlices, sliceOwnerOf, syncSlices, type SliceGroup } from "../endpointslice/slices.js";

/** kube's `--mirroring-max-endpoints-per-subset` default. */
export const MAX_MIRRORED_PER_SUBSET = 1000;

export interface MirroringControllerOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly names: EndpointNames;
  /** Endpoints another reconciler already gives a slice (the server's own, `default/<serverServiceName>`). */
  readonly skip?: { readonly namespace: string; readonly name: string };
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** The slices mirroring one custom Endpoints: per subset and address type, at most 1,000 addresses a subset. */
export function mirroredSlices(endpoints: ApiObject, names: EndpointNames): Map<string, ApiObject> {
  const groups: SliceGroup[] = [];
  for (const subset of list(endpoints["subsets"])) {
    const ports = list(subset["ports"]).map(
      (port): EndpointPort => ({
        ...(typeof port["name"] === "string" && port["name"] !== "" ? { name: port["name"] } : {}),
        port: typeof port["port"] === "number" ? port["port"] : 0,
        protocol: typeof port["protocol"] === "string" ? port["protocol"] : "TCP",
        ...(typeof port["appProtocol"] === "string" ? { appProtocol: port["appProtocol"] } : {}),
      }),
    );
    const addresses = [
      ...list(subset["addresses"]).map((address) => ({ address, ready: true })),
      ...list(subset["notReadyAddresses"]).map((address) => ({ address, ready: false })),
    ]
      .filter(({ address }) => typeof address["ip"] === "string" && isIP(address["ip"]) !== 0)
      .slice(0, MAX_MIRRORED_PER_SUBSET);
    for (const family of ["IPv4", "IPv6"] as const) {
      const members = addresses.filter(({ address }) => (isIP(String(address["ip"])) === 6 ? "IPv6" : "IPv4") === family);
      if (members.length === 0) continue;
      groups.push({
        addressType: family,
        ports,
        endpoints: members.map(({ address, ready }) => ({
          addresses: [String(address["ip"])],
          conditions: { ready },
          ...(typeof address["hostname"] === "string" ? { hostname: address["hostname"] } : {}),
          ...(typeof address["nodeName"] === "string" ? { nodeName: address["nodeName"] } : {}),
          ...(isPlainObject(address["targetRef"]) ? { targetRef: address["targetRef"] } : {}),
        })),
      });
    }
  }
  return desiredSlices(sliceOwnerOf(endpoints, "Endpoints", names.mirroringManager, names), groups, names);
}

/**
 * kube-controller-manager's `endpointslicemirroring`: an Endpoints written by hand for a Service
 * without a selector is mirrored into EndpointSlices (managed-by
 * `endpointslicemirroring-controller.<apiDomain>`); Endpoints carrying the skip-mirror label (the
 * endpoint controller's own) and the server's own are not. Mirrors whose Endpoints or Service
 * went, or whose Service gained a selector, are deleted. On the work queue, keyed by the
 * Endpoints' `namespace/name` (its Service's too): a change reconciles that one name only.
 */
export function mirroringController(options: MirroringControllerOptions): QueueControllerSpec {
  const { client, names } = options;
  const services = options.informers.indexed(SERVICES);
  const endpoints = options.informers.indexed(ENDPOINTS);
  const slices = options.informers.indexed(names.endpointSlices);
  const ours = (slice: ApiObject): boolean => slice.metadata.labels?.[names.managedByLabel] === names.mirroringManager;
  const sliceKey = (slice: ApiObject): string => `${slice.metadata.namespace ?? ""}/${slice.metadata.labels?.[names.serviceNameLabel] ?? ""}`;
  const skipped = (object: ApiObject): boolean =>
    object.metadata.labels?.[names.skipMirrorLabel] === "true" ||
    (options.skip !== undefined && options.skip.namespace === object.metadata.namespace && options.skip.name === object.metadata.name);
  /** The Endpoints that should have mirrors: not skipped, of a Service without a selector. */
  const mirrored = (object: ApiObject): boolean => {
    if (skipped(object)) return false;
    const service = services.get(object.metadata.namespace ?? "", object.metadata.name ?? "");
    return service !== undefined && selectorOf(service) === undefined;
  };

  function* everything(): Iterable<string> {
    for (const object of endpoints.list()) if (mirrored(object)) yield objectKey(object);
    for (const slice of slices.list()) if (ours(slice)) yield sliceKey(slice);
  }

  async function reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const source = endpoints.get(namespace, name);
    const desired = new Map<string, ApiObject>();
    if (source !== undefined && mirrored(source)) {
      for (const [sliceName, slice] of mirroredSlices(source, names)) desired.set(`${namespace}/${sliceName}`, slice);
    }
    const existing = slices.listNamespace(namespace).filter((slice) => ours(slice) && slice.metadata.labels?.[names.serviceNameLabel] === name);
    if (existing.length === 0 && desired.size === 0) return;
    await syncSlices(client, names, existing, desired);
  }

  return {
    name: "endpointslicemirroring",
    watch(queue) {
      const onName = (object: ApiObject): void => queue.add(objectKey(object));
      // The endpoint controller's own Endpoints (skip label) change with every pod: not ours, unless the label just came.
      const onEndpoints = (object: ApiObject, previous?: ApiObject): void => {
        if (!skipped(object) || (previous !== undefined && !skipped(previous))) onName(object);
      };
      const onSlice = (slice: ApiObject): void => {
        if (ours(slice)) queue.add(sliceKey(slice));
      };
      const all = (): void => {
        for (const key of everything()) queue.add(key);
      };
      const off = [
        services.addHandlers({ onAdd: onName, onUpdate: onName, onDelete: onName, onReset: all }),
        endpoints.addHandlers({ onAdd: (object) => onEndpoints(object), onUpdate: onEndpoints, onDelete: (object) => onEndpoints(object), onReset: all }),
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
