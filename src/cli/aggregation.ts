import { readFileSync } from "node:fs";
import { builtinApiServicePriority, CUSTOM_RESOURCE_PRIORITY } from "../api/apiservice.js";
import type { ApiClient, ResourceRef } from "../api/client.js";
import { apiGroup, type Profile } from "../api/profile.js";
import { apiServiceAvailabilityController } from "../controllers/apiservice/availability.js";
import { apiServiceRegistrationController, type LocalGroupVersion } from "../controllers/apiservice/auto-registration.js";
import { discoveryProbe } from "../controllers/apiservice/discovery-probe.js";
import type { InformerFactory } from "../controllers/runtime/informer.js";
import type { QueueControllerSpec } from "../controllers/runtime/queue-controller.js";
import type { Controller } from "../controllers/controller.js";
import { createAggregatedApis } from "../endpoints/aggregation/aggregated-apis.js";
import { createBackendDiscovery } from "../endpoints/aggregation/backend-discovery.js";
import type { ProxyClient } from "../endpoints/aggregation/backend-request.js";
import { aggregatedTarget, proxyAggregated } from "../endpoints/aggregation/proxy.js";
import type { Aggregation } from "../endpoints/aggregation/served-groups.js";
import type { Registry } from "../registry/index.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { Config } from "./config.js";
import { StartupError } from "./data-dir.js";

export interface AggregationWiring {
  readonly registry: Registry;
  readonly client: ApiClient;
  readonly config: Config;
  /** Resolves once the custom resources found at start are served. */
  readonly customResourcesReady: Promise<void>;
  readonly onError: (controller: string, error: unknown) => void;
}

/** The aggregation layer as the composition root wires it: discovery's view, the proxy route, and the controllers. */
export interface ComposedAggregation {
  readonly aggregation: Aggregation;
  readonly route: (context: RequestContext) => Promise<ApiResponse> | undefined;
  readonly controllers: readonly (Controller | ((informers: InformerFactory) => Controller | QueueControllerSpec))[];
}

function proxyClient(config: Config): ProxyClient | undefined {
  if (config.proxyClientCertFile === undefined || config.proxyClientKeyFile === undefined) return undefined;
  try {
    return { cert: readFileSync(config.proxyClientCertFile, "utf8"), key: readFileSync(config.proxyClientKeyFile, "utf8") };
  } catch (error) {
    throw new StartupError(`--proxy-client-cert-file/--proxy-client-key-file: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The group versions the server serves itself, with kube's priorities (custom resources' are low). */
function localGroupVersions(registry: Registry, profile: Profile): LocalGroupVersion[] {
  const out = new Map<string, LocalGroupVersion>();
  for (const store of registry.stores) {
    const { group, version } = store.definition;
    const custom = store.definition.openApiSchema !== undefined;
    const priority = custom ? CUSTOM_RESOURCE_PRIORITY : builtinApiServicePriority(profile, group, version);
    if (priority === undefined || out.has(`${group}/${version}`)) continue;
    out.set(`${group}/${version}`, { group, version, priority, custom });
  }
  return [...out.values()];
}

/**
 * kube's aggregator in this server: APIServices registered for what the server serves, their
 * availability kept, aggregated groups in discovery, and requests under them proxied to their
 * servers. Ask before the registry starts (it takes feeds).
 */
export function composeAggregation(wiring: AggregationWiring): ComposedAggregation {
  const { registry, client, config } = wiring;
  const profile = config.profile;
  const apiServices: ResourceRef = { group: apiGroup(profile, "apiregistration"), version: "v1", plural: "apiservices" };
  const served = registry.find(apiServices.group, apiServices.version, apiServices.plural) !== undefined;
  const identity = proxyClient(config);
  const apis = createAggregatedApis(
    served
      ? {
          apiServices: registry.feed(apiServices.group, "v1", "apiservices"),
          services: registry.feed("", "v1", "services"),
          endpoints: registry.feed("", "v1", "endpoints"),
        }
      : { apiServices: EMPTY_FEED, services: EMPTY_FEED, endpoints: EMPTY_FEED },
  );
  const backends = createBackendDiscovery(apis, {
    user: { name: profile.aggregatorUser, groups: ["system:masters"] },
    ...(identity === undefined ? {} : { client: identity }),
  });
  const aggregation: Aggregation = { apis, backends, profile };
  const route = (context: RequestContext): Promise<ApiResponse> | undefined => {
    const target = aggregatedTarget(apis, context.request.path);
    return target === undefined ? undefined : proxyAggregated(context, target, identity);
  };
  if (!served) return { aggregation, route, controllers: [] };
  return {
    aggregation,
    route,
    controllers: [
      (informers) =>
        apiServiceRegistrationController({
          client,
          informers,
          apiServices,
          label: profile.apiServiceAutomanagedLabel,
          served: () => localGroupVersions(registry, profile),
          onServedChange: (listener) => registry.onChange(() => listener()),
          ready: wiring.customResourcesReady,
          onError: (error) => wiring.onError("apiservice registration", error),
        }),
      (informers) =>
        apiServiceAvailabilityController({
          client,
          informers,
          apiServices,
          probe: discoveryProbe({ user: profile.aggregatorUser, ...(identity === undefined ? {} : { client: identity }) }),
        }),
    ],
  };
}

/** A feed with nothing in it, for a server that does not serve APIServices (`--runtime-config` turned them off). */
const EMPTY_FEED = {
  objects: () => [],
  get: () => undefined,
  subscribe: () => () => {},
};
