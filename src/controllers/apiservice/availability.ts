import { readApiService, resolveBackend, type ApiServiceView } from "../../api/apiservice.js";
import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { InformerFactory } from "../runtime/informer.js";
import type { QueueControllerSpec } from "../runtime/queue-controller.js";
import type { DiscoveryProbe } from "./discovery-probe.js";

const SERVICES: ResourceRef = { group: "", version: "v1", plural: "services" };
const ENDPOINTS: ResourceRef = { group: "", version: "v1", plural: "endpoints" };

export interface ApiServiceAvailabilityOptions {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  /** The APIService resource (`apiregistration.<apiDomain>/v1`). */
  readonly apiServices: ResourceRef;
  readonly probe: DiscoveryProbe;
  /** How often a service-backed APIService is checked again without a change; default 30 s (kube's resync). */
  readonly recheckMs?: number;
  readonly now?: () => string;
}

/** The Available condition as a check leaves it. */
interface Verdict {
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/**
 * kube-aggregator's availability controllers (local and remote) in one queue: a local APIService
 * is Available (`Local`); a service-backed one is False while its Service is missing
 * (`ServiceNotFound`), does not listen on the port (`ServicePortError`), has no Endpoints
 * (`EndpointsNotFound`) or none ready on the port's name (`MissingEndpoints`), or its server does
 * not answer discovery with 2xx (`FailedDiscoveryCheck`); True (`Passed`) otherwise. Each is checked
 * again when it, its Service or its Endpoints change, and every `recheckMs`. The status is written
 * only when the condition changes; its lastTransitionTime moves only with its status.
 */
export function apiServiceAvailabilityController(options: ApiServiceAvailabilityOptions): QueueControllerSpec {
  const { client, apiServices } = options;
  const recheckMs = options.recheckMs ?? 30_000;
  const now = options.now ?? (() => new Date().toISOString().replace(/\.\d{3}Z$/, "Z"));
  const registered = options.informers.informer(apiServices);
  const services = options.informers.informer(SERVICES);
  const endpoints = options.informers.informer(ENDPOINTS);

  async function verdictOf(view: ApiServiceView): Promise<Verdict> {
    const backend = view.backend;
    if (backend === undefined) return { status: "True", reason: "Local", message: "Local APIServices are always available" };
    const about = `service/${backend.name} in ${JSON.stringify(backend.namespace)}`;
    let service: ApiObject | undefined;
    try {
      service = services.get(backend.namespace, backend.name);
    } catch (error) {
      return { status: "Unknown", reason: "ServiceAccessError", message: `${about} cannot be checked due to: ${String(error)}` };
    }
    if (service === undefined) return { status: "False", reason: "ServiceNotFound", message: `${about} is not present` };
    const spec = record(service["spec"]);
    const found = endpoints.get(backend.namespace, backend.name);
    if ((spec["type"] ?? "ClusterIP") === "ClusterIP") {
      const port = list(spec["ports"]).find((candidate) => candidate["port"] === backend.port);
      if (port === undefined) return { status: "False", reason: "ServicePortError", message: `${about} is not listening on port ${backend.port}` };
      if (found === undefined) return { status: "False", reason: "EndpointsNotFound", message: `cannot find endpoints for ${about}` };
      const portName = typeof port["name"] === "string" ? port["name"] : "";
      const ready = list(found["subsets"]).some(
        (subset) => list(subset["addresses"]).length > 0 && list(subset["ports"]).some((candidate) => (candidate["name"] ?? "") === portName),
      );
      if (!ready)
        return { status: "False", reason: "MissingEndpoints", message: `endpoints for ${about} have no addresses with port name ${JSON.stringify(portName)}` };
    }
    const address = resolveBackend(service, found, backend);
    if (address.kind === "unresolved") return { status: "False", reason: "FailedDiscoveryCheck", message: address.message };
    const host = address.host.includes(":") ? `[${address.host}]` : address.host;
    const path = view.name === "v1." ? `/api/${view.version}` : `/apis/${view.group}/${view.version}`;
    const url = `https://${host}:${address.port}${path}`;
    const failure = await options.probe(url);
    if (failure !== undefined) return { status: "False", reason: "FailedDiscoveryCheck", message: `failing or missing response from ${url}: ${failure}` };
    return { status: "True", reason: "Passed", message: "all checks passed" };
  }

  async function write(object: ApiObject, verdict: Verdict): Promise<void> {
    const status = record(object["status"]);
    const conditions = list(status["conditions"]);
    const current = conditions.find((condition) => condition["type"] === "Available");
    if (current !== undefined && current["status"] === verdict.status && current["reason"] === verdict.reason && current["message"] === verdict.message) return;
    const transition = current !== undefined && current["status"] === verdict.status ? current["lastTransitionTime"] : now();
    const condition = { type: "Available", status: verdict.status, lastTransitionTime: transition, reason: verdict.reason, message: verdict.message };
    const next = current === undefined ? [...conditions, condition] : conditions.map((entry) => (entry === current ? condition : entry));
    await client.updateSubresource(apiServices, "", object.metadata.name ?? "", "status", { ...object, status: { ...status, conditions: next } });
  }

  /** APIService names by their service's `namespace/name`, rebuilt after an APIService changes (Endpoints change far more often). */
  let byBackend: Map<string, string[]> | undefined;
  const namesUsing = (namespace: string, name: string): readonly string[] => {
    if (byBackend === undefined) {
      byBackend = new Map();
      for (const view of registered.list().map(readApiService)) {
        if (view.backend === undefined) continue;
        const key = `${view.backend.namespace}/${view.backend.name}`;
        byBackend.set(key, [...(byBackend.get(key) ?? []), view.name]);
      }
    }
    return byBackend.get(`${namespace}/${name}`) ?? [];
  };
  const forget = (): void => {
    byBackend = undefined;
  };

  return {
    name: "apiservice-availability",
    workers: 2,
    watch(queue) {
      const enqueueBackend = (object: ApiObject): void => {
        for (const name of namesUsing(object.metadata.namespace ?? "", object.metadata.name ?? "")) queue.add(name);
      };
      const backendHandlers = { onAdd: enqueueBackend, onUpdate: enqueueBackend, onDelete: enqueueBackend };
      const unsubscribe = [
        registered.addHandlers({
          onAdd: (object) => {
            forget();
            queue.add(object.metadata.name ?? "");
          },
          onUpdate: (object) => {
            forget();
            queue.add(object.metadata.name ?? "");
          },
          onDelete: forget,
          onReset: () => {
            forget();
            for (const object of registered.list()) queue.add(object.metadata.name ?? "");
          },
        }),
        services.addHandlers(backendHandlers),
        endpoints.addHandlers(backendHandlers),
      ];
      return () => {
        for (const stop of unsubscribe) stop();
      };
    },
    initialKeys: () => registered.list().map((object) => object.metadata.name ?? ""),
    async reconcile(name) {
      const object = registered.get("", name);
      if (object === undefined) return;
      const view = readApiService(object);
      const verdict = await verdictOf(view);
      // The object may have changed during the check: write against what is there now.
      const latest = registered.get("", name) ?? object;
      try {
        await write(latest, verdict);
      } catch (error) {
        // A newer write (or a deletion) came first: its change queues another check.
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
      }
      return view.backend === undefined ? undefined : recheckMs;
    },
  };
}
