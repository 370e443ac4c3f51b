import { isIP } from "node:net";
import type { ApiClient } from "../../api/client.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import { followAndReconcile } from "../follow.js";
import { ENDPOINTS, SERVICES, selectorOf, type EndpointNames, type EndpointPort } from "../endpoint/service-pods.js";
import { desiredSlices, sliceOwnerOf, syncSlices, type SliceGroup } from "../endpointslice/slices.js";

/** kube's `--mirroring-max-endpoints-per-subset` default. */
export const MAX_MIRRORED_PER_SUBSET = 1000;

export interface MirroringControllerOptions {
  readonly client: ApiClient;
  readonly names: EndpointNames;
  /** Endpoints another reconciler already gives a slice (the server's own, `default/<serverServiceName>`). */
  readonly skip?: { readonly namespace: string; readonly name: string };
  readonly onError?: (error: unknown) => void;
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
 * went, or whose Service gained a selector, are deleted.
 */
export function mirroringController(options: MirroringControllerOptions): Controller {
  const { client, names } = options;
  async function reconcile(): Promise<void> {
    const [services, endpoints] = await Promise.all([client.list(SERVICES, ""), client.list(ENDPOINTS, "")]);
    const withoutSelector = new Set(
      services.items.filter((service) => selectorOf(service) === undefined).map((service) => `${service.metadata.namespace}/${service.metadata.name}`),
    );
    const desired = new Map<string, ApiObject>();
    for (const object of endpoints.items) {
      const namespace = object.metadata.namespace ?? "";
      const name = object.metadata.name ?? "";
      if (!withoutSelector.has(`${namespace}/${name}`) || object.metadata.labels?.[names.skipMirrorLabel] === "true") continue;
      if (options.skip !== undefined && options.skip.namespace === namespace && options.skip.name === name) continue;
      for (const [sliceName, slice] of mirroredSlices(object, names)) desired.set(`${namespace}/${sliceName}`, slice);
    }
    const existing = (await client.list(names.endpointSlices, "")).items.filter(
      (slice) => slice.metadata.labels?.[names.managedByLabel] === names.mirroringManager,
    );
    await syncSlices(client, names, existing, desired);
  }
  return {
    name: "endpointslicemirroring",
    run: (signal) => followAndReconcile(client, [SERVICES, ENDPOINTS, names.endpointSlices], signal, { reconcile, onError: options.onError }),
  };
}
