import { isIP } from "node:net";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { Controller } from "../controller.js";
import type { InformerFactory } from "../runtime/informer.js";

const SERVICES: ResourceRef = { group: "", version: "v1", plural: "services" };
const ENDPOINTS: ResourceRef = { group: "", version: "v1", plural: "endpoints" };

export interface ApiServerServiceOptions {
  readonly client: ApiClient;
  /** Where the current Service, Endpoints and EndpointSlice are read: the watch cache, not the store. */
  readonly informers: InformerFactory;
  /** The Service's name (the profile's `serverServiceName`). */
  readonly name: string;
  /** The cluster IP it takes: the first address of the primary service range, as kube's. */
  readonly clusterIp: string;
  /** `host:port` the server listens on (known once the listener is up; port 0 until then). */
  readonly serverAddress: () => string;
  /** The EndpointSlice resource (`discovery.<apiDomain>/v1`). */
  readonly endpointSlices: ResourceRef;
  /** The label naming a slice's service (`<keyDomain>/service-name`). */
  readonly serviceNameLabel: string;
  /** The label naming who manages a slice. */
  readonly managedByLabel: string;
  readonly managedBy: string;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

const NAMESPACE = "default";

/**
 * kube's endpoint reconciler for the API server itself: keeps a Service in `default` that points
 * at this server (port 443 → the secure port), and its Endpoints and EndpointSlice listing this
 * server's address. Runs at start and every `intervalMs` (default 10 s, kube's reconciler
 * interval), rewriting only what differs, so a deleted or edited Endpoints comes back as kube's
 * reconciler brings it back. It compares against the shared informers' view (the watch cache), so
 * a pass with nothing to do reads nothing from the store. Periodic rather than on every change:
 * several servers on one store would otherwise rewrite each other's port in a tight loop.
 */
export function apiServerServiceController(options: ApiServerServiceOptions): Controller {
  const { client, name } = options;
  const interval = options.intervalMs ?? 10_000;

  async function ensureService(port: number): Promise<void> {
    const ports = [{ name: "https", port: 443, protocol: "TCP", targetPort: port === 0 ? 6443 : port }];
    const current = options.informers.informer(SERVICES).get(NAMESPACE, name);
    if (current !== undefined) {
      // As kube's reconciler: the ports follow the server's; the rest of the spec is the users'.
      const spec = current["spec"];
      if (port === 0 || !isPlainObject(spec) || JSON.stringify(spec["ports"]) === JSON.stringify(ports)) return;
      await client.update(SERVICES, NAMESPACE, name, { ...current, spec: { ...spec, ports } });
      return;
    }
    await client.create(SERVICES, NAMESPACE, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: NAMESPACE, labels: { component: "apiserver", provider: name } },
      spec: {
        type: "ClusterIP",
        clusterIP: options.clusterIp,
        sessionAffinity: "None",
        ports,
      },
    });
  }

  async function ensure(resource: ResourceRef, desired: ApiObject, same: (current: ApiObject) => boolean): Promise<void> {
    const current = options.informers.informer(resource).get(NAMESPACE, name);
    if (current !== undefined && same(current)) return;
    // Endpoints and EndpointSlices are created on update (PUT), as kube's strategies allow.
    const object = current === undefined ? desired : { ...desired, metadata: { ...desired.metadata, resourceVersion: current.metadata.resourceVersion } };
    await client.update(resource, NAMESPACE, name, object);
  }

  async function reconcile(): Promise<boolean> {
    const address = options.serverAddress();
    const colon = address.lastIndexOf(":");
    const host = address.slice(0, colon).replace(/^\[|\]$/g, "");
    const port = Number(address.slice(colon + 1));
    await ensureService(port);
    if (!Number.isInteger(port) || port === 0) return false;
    const ip = isIP(host) !== 0 && host !== "0.0.0.0" && host !== "::" ? host : "127.0.0.1";
    const family = isIP(ip) === 6 ? "IPv6" : "IPv4";
    const ports = [{ name: "https", port, protocol: "TCP" }];
    await ensure(
      ENDPOINTS,
      {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, namespace: NAMESPACE, labels: { [options.serviceNameLabel]: name } },
        subsets: [{ addresses: [{ ip }], ports }],
      },
      (current) => JSON.stringify(current["subsets"]) === JSON.stringify([{ addresses: [{ ip }], ports }]),
    );
    const endpoints = [{ addresses: [ip], conditions: { ready: true } }];
    await ensure(
      options.endpointSlices,
      {
        apiVersion: `${options.endpointSlices.group}/${options.endpointSlices.version}`,
        kind: "EndpointSlice",
        metadata: { name, namespace: NAMESPACE, labels: { [options.serviceNameLabel]: name, [options.managedByLabel]: options.managedBy } },
        addressType: family,
        endpoints,
        ports,
      },
      (current) =>
        JSON.stringify(current["endpoints"]) === JSON.stringify(endpoints) &&
        JSON.stringify(current["ports"]) === JSON.stringify(ports) &&
        current["addressType"] === family,
    );
    return true;
  }

  return {
    name: "apiserver-service",
    async run(signal) {
      while (!signal.aborted) {
        let settled = false;
        try {
          settled = await reconcile();
        } catch (error) {
          // A conflict means the watch cache had not caught up with a write yet: look again soon.
          if (!(error instanceof ApiError && error.code === 409)) options.onError?.(error);
        }
        // Until the listener's port is known, look again soon.
        await sleep(settled ? interval : 200, signal);
      }
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
