import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Registry as PromRegistry } from "prom-client";
import type { QuotaLedger } from "../admission/plugins/index.js";
import type { ApiClient } from "../api/client.js";
import { apiGroup, type Profile } from "../api/profile.js";
import { rbacNames } from "../authz/rbac/bootstrap-policy.js";
import type { Controller } from "../controllers/controller.js";
import { aggregationController } from "../controllers/clusterrole-aggregation/aggregation-controller.js";
import { garbageCollector } from "../controllers/garbage-collector/garbage-collector.js";
import { namespaceController } from "../controllers/namespace/namespace-controller.js";
import { CONTROLLER_NAMES } from "../controllers/names.js";
import { quotaController } from "../controllers/resource-quota/quota-controller.js";
import { InformerFactory } from "../controllers/runtime/informer.js";
import { leaseElection } from "../controllers/runtime/leader-election.js";
import { ControllerManager, managedLoop } from "../controllers/runtime/manager.js";
import { queueController, type ManagedController, type QueueControllerSpec } from "../controllers/runtime/queue-controller.js";
import { NO_QUEUE_METRICS, workqueueMetrics } from "../controllers/runtime/queue-metrics.js";
import { selectControllers } from "../controllers/runtime/selection.js";
import { rootCaPublisher } from "../controllers/serviceaccount/root-ca-publisher.js";
import { serviceAccountController } from "../controllers/serviceaccount/serviceaccount-controller.js";
import { tokenController } from "../controllers/serviceaccount/token-controller.js";
import type { Registry } from "../registry/index.js";
import { errorFields, type Logger } from "../util/logger.js";

export interface ControllerWiring {
  readonly registry: Registry;
  readonly client: ApiClient;
  readonly profile: Profile;
  readonly logger: Logger;
  readonly ledger: QuotaLedger;
  /** `--controllers`. */
  readonly selection: readonly string[];
  /** Elect a leader through a Lease (stores several servers share); timings default to kube's. */
  readonly leaderElection: { readonly enabled: boolean; readonly leaseDurationMs?: number; readonly renewDeadlineMs?: number; readonly retryPeriodMs?: number };
  /** The root CA published in every namespace and token Secret; without it the publisher does not run. */
  readonly rootCa?: string;
  /** Signs legacy token Secrets; without it the token controller does not run. */
  readonly issueLegacy?: Parameters<typeof tokenController>[0]["issueLegacy"];
  /** Where workqueue metrics go. */
  readonly metrics?: PromRegistry;
  /** More controllers by `--controllers` name, run on the elected server (certificates, bootstrap tokens, endpoints). */
  readonly loops?: Readonly<Record<string, ControllerBuilder>>;
  /** Controllers every server runs whatever the selection (the server's own Service). */
  readonly everywhere: readonly (Controller | ControllerBuilder)[];
}

/** A controller built over the shared informers: a loop, or a work-queue spec. */
export type ControllerBuilder = (informers: InformerFactory) => Controller | QueueControllerSpec;

function isQueueSpec(controller: Controller | QueueControllerSpec): controller is QueueControllerSpec {
  return "reconcile" in controller;
}

/**
 * Builds the controller manager: one informer per resource over the registry's watch cache,
 * shared by every controller; the `--controllers` selection; the Lease election. Informers are
 * made here, before the registry starts.
 */
export function composeControllers(wiring: ControllerWiring): ControllerManager {
  const { registry, client, profile, logger } = wiring;
  const enabled = selectControllers(CONTROLLER_NAMES, wiring.selection);
  const informers = new InformerFactory((resource) => registry.feed(resource.group, resource.version, resource.plural));
  const metrics = wiring.metrics === undefined ? NO_QUEUE_METRICS : workqueueMetrics(wiring.metrics);
  const onError = (controller: string, key: string, error: unknown): void => logger.error(`controller ${controller}: ${key}`, errorFields(error));
  const queued = (spec: QueueControllerSpec): ManagedController => queueController(spec, { metrics, onError });
  const managed = (controller: Controller | QueueControllerSpec): ManagedController => (isQueueSpec(controller) ? queued(controller) : managedLoop(controller));

  const builders: Record<string, () => ManagedController | undefined> = {
    ...Object.fromEntries(Object.entries(wiring.loops ?? {}).map(([name, make]) => [name, () => managed(make(informers))])),
    garbagecollector: () =>
      queued(
        garbageCollector({
          client,
          informers,
          onResourcesChanged: (listener) => registry.onChange(listener),
          onInvalidOwner: (dependent, owner, message) =>
            logger.info("garbage collector: OwnerRefInvalidNamespace", { namespace: dependent.namespace, name: dependent.name, owner: owner.name, message }),
          onEventError: (error) => logger.error("garbage collector: event", errorFields(error)),
        }),
      ),
    namespace: () => queued(namespaceController({ client, informers, finalizer: profile.namespaceFinalizer })),
    resourcequota: () => queued(quotaController({ client, informers, ledger: wiring.ledger, onResourcesChanged: (listener) => registry.onChange(listener) })),
    "clusterrole-aggregation": () => queued(aggregationController({ client, informers, group: rbacNames(profile).group })),
    serviceaccount: () => queued(serviceAccountController({ client, informers })),
    "serviceaccount-token": () =>
      wiring.issueLegacy === undefined || wiring.rootCa === undefined
        ? undefined
        : queued(
            tokenController({
              client,
              informers,
              secretType: profile.serviceAccountTokenSecretType,
              keyDomain: profile.keyDomain,
              issueLegacy: wiring.issueLegacy,
              caBundle: wiring.rootCa,
            }),
          ),
    "root-ca-cert-publisher": () =>
      wiring.rootCa === undefined
        ? undefined
        : queued(
            rootCaPublisher({
              client,
              informers,
              name: profile.rootCAConfigMap,
              caBundle: wiring.rootCa,
              descriptionAnnotation: `${profile.keyDomain}/description`,
            }),
          ),
  };
  const elected: ManagedController[] = [];
  for (const entry of CONTROLLER_NAMES) {
    if (!enabled.has(entry.name)) continue;
    const controller = builders[entry.name]?.();
    if (controller !== undefined) elected.push(controller);
  }
  const { enabled: elect, ...timings } = wiring.leaderElection;
  const election = elect
    ? leaseElection({
        ...timings,
        client,
        leases: { group: apiGroup(profile, "coordination"), version: "v1", plural: "leases" },
        namespace: profile.systemNamespace,
        name: profile.controllerManagerLease,
        identity: `${hostname()}_${randomUUID()}`,
        onError: (error) => logger.error("leader election", errorFields(error)),
      })
    : undefined;
  return new ControllerManager({
    elected,
    everywhere: wiring.everywhere.map((entry) => (typeof entry === "function" ? managed(entry(informers)) : managedLoop(entry))),
    election,
    onStopped: (name, error) => logger.error(`controller ${name} stopped`, errorFields(error)),
  });
}
