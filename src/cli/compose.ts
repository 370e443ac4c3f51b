import type { ObjectLister } from "../api/client.js";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { hostname } from "node:os";
import { AdmissionChain } from "../admission/chain.js";
import { builtinPlugins, namespaceLifecycle, QuotaLedger, rbacEscalation, SYSTEM_PRIORITY_CLASSES } from "../admission/plugins/index.js";
import { ApiError } from "../api/errors.js";
import { admissionNames, apiGroup, metaGroup } from "../api/profile.js";
import type { ApiObject } from "../api/object.js";
import { builtinSchemas } from "../api/schema/builtin.js";
import { builtinCatalogue } from "../api/schema/catalogue.js";
import type { IssuerDiscovery } from "../auth/service-account/discovery.js";
import { legacyTokenTracker } from "../auth/service-account/legacy-token-tracker.js";
import { rbacNames } from "../authz/rbac/bootstrap-policy.js";
import { identityLeaseController } from "../controllers/apiserver-identity/identity-lease-controller.js";
import { allocationRepairController } from "../controllers/allocation-repair/allocation-repair-controller.js";
import { storageProtectionController } from "../controllers/storage-protection/storage-protection-controller.js";
import { apiServerServiceController } from "../controllers/apiserver-service/apiserver-service-controller.js";
import { typeCheckingController } from "../controllers/admission-policy-status/type-checking-controller.js";
import { csrApprovingController } from "../controllers/certificates/approving/csr-approving-controller.js";
import { csrCleanerController } from "../controllers/certificates/cleaner/csr-cleaner-controller.js";
import { csrSigningController } from "../controllers/certificates/signing/csr-signing-controller.js";
import { bootstrapSignerController } from "../controllers/bootstrap/bootstrap-signer.js";
import { tokenCleanerController } from "../controllers/bootstrap/token-cleaner.js";
import { endpointController } from "../controllers/endpoint/endpoint-controller.js";
import { endpointNames } from "../controllers/endpoint/service-pods.js";
import { endpointSliceController } from "../controllers/endpointslice/endpointslice-controller.js";
import { mirroringController } from "../controllers/endpointslice-mirroring/mirroring-controller.js";
import type { Controller } from "../controllers/controller.js";
import { composeControllers, type ControllerBuilder } from "./controllers.js";
import { composeAggregation } from "./aggregation.js";
import { customResourceDefinitionController } from "../controllers/crd/crd-controller.js";
import { registerPlugins } from "./admission.js";
import { conversionWebhooks, policyKindResolver, policyParamKindResolver, registryWebhookAdmission } from "./webhooks.js";
import { applyEncryption } from "./encryption.js";
import { configureAudit } from "./audit.js";
import { componentStatuses, controllerManagerHealth } from "./component-statuses.js";
import { computedKey } from "../endpoints/computed.js";
import { createResourceHandler } from "../endpoints/resource-handler.js";
import {
  AccessReviewerSlot,
  apiVersionOf,
  builtinResources,
  CompiledSchemas,
  compiledPrefix,
  customResourceDefinitions,
  DEFAULT_COMPILED_VERSIONS,
  type VersionArtifacts,
  enabledDefinitions,
  readCurrent,
  Registry,
  registryClient,
  storedBuiltinResources,
  StoredValueError,
  TokenReviewerSlot,
  withSchemas,
  type TokenRequestOptions,
  type WatchCacheOptions,
} from "../registry/index.js";
import type { Handler } from "../request/context.js";
import { createAuthorization } from "../server/authorization/authorization.js";
import { createFlowControlStage } from "../server/flowcontrol/index.js";
import { filterChain } from "../server/handler.js";
import { withGracePeriod, type HealthCheck } from "../server/health/health.js";
import { createMetrics, type ApiMetrics } from "../server/metrics/metrics.js";
import { createWatchCacheMetrics } from "../server/metrics/watch-cache-metrics.js";
import { createAuditMetrics } from "../server/metrics/audit-metrics.js";
import { createAdmissionMetrics } from "../server/metrics/admission-metrics.js";
import { createStorageMetrics, pollStorageObjects, registerStorageSize } from "../server/metrics/storage-metrics.js";
import { tracedAdmission, tracedAuthenticator, tracedAuthorizer } from "../server/tracing/traced.js";
import { createTracing, type Tracing, type TracingOptions } from "../server/tracing/tracing.js";
import { loadTracingConfig, TracingConfigError } from "../server/tracing/tracing-config.js";
import { damagedDataDirStore, openDataDirStore, StartupError } from "./data-dir.js";
import { WebhookConfigError } from "../auth/webhook-client.js";
import type { AuditFilterOptions } from "../server/filters/audit.js";
import { maxInFlightFilter } from "../server/filters/max-in-flight.js";
import { createNonResourceHandler } from "../server/routes.js";
import {
  InstrumentedStorage,
  KeyLayout,
  SizeLimitedStorage,
  startCompactor,
  upgradeLegacyKeys,
  type CompactorOptions,
  type Storage,
} from "../storage/index.js";
import { startEtcdCompactor } from "../storage/etcd/etcd-compactor.js";
import { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import { kubeStorageEncoding } from "../codec/protobuf/storage-values.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { DamagedStoreError, type SqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { errorFields, type Logger } from "../util/logger.js";
import { markStartup } from "../util/startup-clock.js";
import type { Config, SignerFlag } from "./config.js";
import type { Credentials } from "./credentials.js";

/** What authentication contributes: the authenticators (built over the registry's objects), TokenRequest signing, OIDC discovery. */
export type AuthenticationSource = Pick<Credentials, "authentication" | "tokenRequest"> & {
  readonly issuerDiscovery?: IssuerDiscovery;
  /** Signs legacy token Secrets (the token controller); without it that controller does not run. */
  readonly tokenIssuer?: Credentials["tokenIssuer"];
  /** The `extension-apiserver-authentication` ConfigMap's data; without it the ConfigMap is not written. */
  readonly authenticationInfo?: Credentials["authenticationInfo"];
};

export interface ComposeOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly credentials: AuthenticationSource;
  /** `host:port` clients reach the server at, for `/api`'s serverAddressByClientCIDRs (known once the listener is up). */
  readonly serverAddress: () => string;
  /** The metrics served at /metrics; default a new registry without process metrics. */
  readonly metrics?: ApiMetrics;
  /** A store to use instead of the one `--storage-backend` opens (tests); its owner closes it. */
  readonly storage?: Storage;
  /** Watch cache tuning beyond `--default-watch-cache-size` (tests). */
  readonly watchCacheOptions?: Partial<WatchCacheOptions>;
  /** How long reads wait for an unreached resourceVersion before 504 (default 3 s). */
  readonly futureRevisionWaitMs?: number;
  /** Interval of periodic watch BOOKMARKs (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** Tracing settings instead of `--tracing-config-file`'s (tests: an in-memory exporter); used only with APIServerTracing on. */
  readonly tracing?: Omit<TracingOptions, "serviceName">;
  /** Audit policy and backend instead of the `--audit-*` flags' (tests); its owner shuts the backend down. */
  readonly audit?: AuditFilterOptions;
  /** The cluster CA (PEM certificate and key) the CSR signers use where no `--cluster-signing-*` file is given; none = they do not sign. */
  readonly clusterCa?: { readonly certificate: string; readonly key: string };
  /** The CA bundle clients verify the server with: published as `<profile>-root-ca.crt` and in token Secrets. */
  readonly rootCa?: string;
  /** Lease election of the controllers (default: `--leader-elect` with `--storage-backend etcd3`); timings for tests. */
  readonly leaderElection?: {
    readonly enabled: boolean;
    readonly leaseDurationMs?: number;
    readonly renewDeadlineMs?: number;
    readonly retryPeriodMs?: number;
  };
  /** The identity Lease; see IdentityLeaseSettings. */
  readonly identityLease?: IdentityLeaseSettings;
}

/**
 * The server's identity Lease (kube's APIServerIdentity). Default: published with
 * `--storage-backend etcd3` (the store several servers share) or with the APIServerIdentity
 * feature gate (alpha in the spec's gate list, so off on one-server stores), under the OS host name, with
 * kube's timings; tests give each in-process server its own host name and short timings.
 */
export interface IdentityLeaseSettings {
  readonly enabled: boolean;
  readonly hostname?: string;
  readonly leaseDurationSeconds?: number;
  readonly renewIntervalMs?: number;
  readonly gcIntervalMs?: number;
}

/** The API server without a listener: every stage, wired. */
export interface ApiServer {
  readonly handler: Handler;
  readonly registry: Registry;
  readonly storage: Storage;
  readonly metrics: ApiMetrics;
  /**
   * Follows the store, reconciles default policy, creates the built-in namespaces, starts the API
   * server's own controllers, and resolves once `/readyz` passes (kube's post-start hooks,
   * `informer-sync`, `crd-informer-synced`). kube-controller-manager's controllers are not started
   * yet: see `startControllers`. `serving` runs once the watch cache holds the store, before the
   * post-start hooks: the listener may start there (kube serves while its hooks run, `/readyz`
   * failing until they pass).
   */
  start(options?: { readonly serving?: () => Promise<void> }): Promise<void>;
  /**
   * After `start()`: starts kube-controller-manager's controllers (`--controllers`, on the Lease
   * holder) and resolves once every controller has synced, or after `timeoutMs`. kube's `/readyz`
   * does not wait for them, so the server may listen (and answer ready) before this resolves.
   */
  startControllers(timeoutMs?: number): Promise<void>;
  /** Marks the server not ready (readyz fails) ahead of a stop. */
  beginShutdown(): void;
  /** Starts periodic compaction (`--etcd-compaction-interval`): coordinated through etcd with the other servers on etcd3. */
  startCompactor(options: CompactorOptions): { stop(): void };
  /** Stops controllers and the watch cache, then closes the store it opened. */
  stop(): Promise<void>;
}

/** A store, what must happen before it is read, and the health checks a remote store adds. */
export interface OpenedStorage {
  readonly storage: Storage;
  /** A consistent copy of the store as one file's bytes (`GET /snapshot`); SQLite only. */
  readonly snapshot?: () => Promise<Uint8Array>;
  /** Called once the watch cache holds the store: memory only the initial read needed is given back. */
  readonly loaded?: () => void;
  /** The start-up refusal naming this store, for a stored value found damaged while the watch cache reads it (`StoredValueError`). */
  readonly damaged?: (cause: Error) => Error;
  ready(): Promise<void>;
  readonly readyz: readonly HealthCheck[];
  readonly livez: readonly HealthCheck[];
  /** Periodic compaction when the store has its own (etcd: one server per interval); the generic compactor otherwise. */
  readonly startCompactor?: (options: CompactorOptions) => { stop(): void };
  /** The store's database size, read at each scrape (`apiserver_storage_size_bytes`): SQLite's file, etcd's member; none in memory. */
  readonly size?: { readonly clusterId: string; readonly bytes: () => Promise<number> };
}

/** Opens the store `--storage-backend` names (also used by the `encryption rewrite` command). */
export function openStorage(config: Config): OpenedStorage {
  const local = (storage: Storage): OpenedStorage => ({ storage, ready: async () => {}, readyz: [], livez: [] });
  switch (config.storageBackend) {
    case "memory":
      return local(new MemoryStorage());
    case "sqlite": {
      mkdirSync(config.dataDir, { recursive: true });
      const sqlite = openDataDirStore(config.dataDir);
      return {
        ...local(sqlite),
        snapshot: () => snapshotBytes(sqlite, config.dataDir),
        loaded: () => sqlite.releasePageCache(),
        damaged: (cause) => damagedDataDirStore(config.dataDir, cause),
        size: { clusterId: "sqlite-0", bytes: async () => sqlite.databaseSizeBytes() },
      };
    }
    case "etcd3": {
      const read = (file: string | undefined): Buffer | undefined => (file === undefined ? undefined : readFileSync(file));
      const etcd = EtcdStorage.connect({
        endpoints: config.etcdServers,
        tls: { ca: read(config.etcdCaFile), cert: read(config.etcdCertFile), key: read(config.etcdKeyFile) },
        prefix: config.etcdPrefix,
        requestTimeoutMs: config.requestTimeoutMs,
        values: kubeStorageEncoding(config.profile),
      });
      return {
        storage: etcd,
        ready: () => etcd.ensureReady(),
        readyz: [{ name: "etcd-readiness", check: () => etcd.checkHealth(config.etcdReadycheckTimeoutMs) }],
        livez: [{ name: "etcd", check: () => etcd.checkHealth(config.etcdHealthcheckTimeoutMs) }],
        startCompactor: (options) => startEtcdCompactor(etcd, options),
        size: { clusterId: "etcd-0", bytes: () => etcd.databaseSizeBytes() },
      };
    }
  }
}

/** Backs the store up to a temporary file in the data dir and returns its bytes. */
async function snapshotBytes(sqlite: SqliteStorage, dataDir: string): Promise<Uint8Array> {
  const file = join(dataDir, `snapshot-${randomUUID()}.db.tmp`);
  try {
    await sqlite.backup(file);
    return await readFile(file);
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * APIServerTracing: the tracer of `--tracing-config-file` (or the tests' settings); none when the
 * gate is off or nothing is configured, and then no stage is traced.
 */
function openTracing(config: Config, override: ComposeOptions["tracing"], logger: Logger): Tracing | undefined {
  if (!config.featureGates.enabled("APIServerTracing")) return undefined;
  const onExportError = (error: unknown): void => logger.error("sending the last trace spans", errorFields(error));
  if (override !== undefined) return createTracing({ onExportError, ...override, serviceName: "apiserver" });
  if (config.tracingConfigFile === undefined) return undefined;
  try {
    return createTracing({ ...loadTracingConfig(config.tracingConfigFile, config.profile), serviceName: "apiserver", onExportError });
  } catch (error) {
    if (error instanceof TracingConfigError) throw new StartupError(`--tracing-config-file: ${error.message}`);
    throw error;
  }
}

/** kube's post-start hook names for the steps of `start()`, in order. */
const POST_START_HOOKS = [
  "rbac/bootstrap-roles",
  "start-system-namespaces-controller",
  "scheduling/bootstrap-system-priority-classes",
  "start-cluster-controllers",
] as const;

/**
 * The CA each built-in signer issues with: its `--cluster-signing-<signer>-*` pair, else the
 * general `--cluster-signing-*` pair, else the cluster CA. Files are read once, at start.
 */
/** Runs a start-up step that reads a webhook kubeconfig; an unusable one is a StartupError naming `flag`. */
function webhookConfigured<T>(flag: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof WebhookConfigError) throw new StartupError(`${flag}: ${error.message}`, { cause: error });
    throw error;
  }
}

function signingAuthorities(config: Config, clusterCa: ComposeOptions["clusterCa"]): Map<string, { certificate: string; key: string }> {
  const { profile, clusterSigning } = config;
  const signers: Record<SignerFlag, string> = {
    "kube-apiserver-client": profile.apiServerClientSigner,
    "kubelet-client": profile.nodeClientSigner,
    "kubelet-serving": profile.nodeServingSigner,
    "legacy-unknown": profile.legacyUnknownSigner,
  };
  const read = (files: { readonly certFile?: string; readonly keyFile?: string }): { certificate: string; key: string } | undefined =>
    files.certFile === undefined || files.keyFile === undefined
      ? undefined
      : { certificate: readFileSync(files.certFile, "utf8"), key: readFileSync(files.keyFile, "utf8") };
  const general = read(clusterSigning) ?? clusterCa;
  const out = new Map<string, { certificate: string; key: string }>();
  for (const [infix, signer] of Object.entries(signers) as [SignerFlag, string][]) {
    const pair = read(clusterSigning.signers[infix] ?? {}) ?? general;
    if (pair !== undefined) out.set(signer, pair);
  }
  return out;
}

/** The spec's Limits table: containers in `default` get a 0.1 CPU request unless they ask for one. */
/** kube's ConfigMap of the CAs and proxy headers extension API servers trust (system namespace). */
export const EXTENSION_AUTHENTICATION_CONFIGMAP = "extension-apiserver-authentication";

const DEFAULT_LIMIT_RANGE: ApiObject = {
  apiVersion: "v1",
  kind: "LimitRange",
  metadata: { name: "limits", namespace: "default" },
  spec: { limits: [{ type: "Container", defaultRequest: { cpu: "100m" } }] },
};

/**
 * The composition root: builds the server in a straight line, each stage from the ones above it.
 * Three stages answer for later ones through slots filled further down (admission plugins need
 * the authorizer; TokenReview and the access reviews are registry resources answered by
 * authentication and authorization, which read the registry): each slot is created here, filled
 * here, and the listener only starts inside `start()` (its `serving` step), once the store is loaded.
 */
export function composeApiServer(options: ComposeOptions): ApiServer {
  const { config, logger } = options;
  const profile = config.profile;

  const metrics =
    options.metrics ??
    createMetrics({ processMetrics: false, serverVersion: profile.gitVersion, showHiddenMetricsForVersion: config.showHiddenMetricsForVersion });

  const tracing = openTracing(config, options.tracing, logger);
  const tracer = tracing?.tracer;

  // 1. Storage: etcd's request size limit on what is stored (after encryption), timed (and traced) per call.
  const opened: OpenedStorage =
    options.storage === undefined ? openStorage(config) : { storage: options.storage, ready: async () => {}, readyz: [], livez: [] };
  // On etcd, etcd itself enforces its limit on the bytes it stores (kube's protobuf, not our JSON).
  const limited = options.storage === undefined && config.storageBackend === "etcd3" ? opened.storage : new SizeLimitedStorage(opened.storage);
  const encryption = applyEncryption(limited, config, logger);
  const layout = new KeyLayout(storedBuiltinResources(profile));
  const storageMetrics = createStorageMetrics(metrics.registry, metrics.visibility, (key) => layout.resourceOf(key));
  const storage = new InstrumentedStorage(encryption.storage, storageMetrics.observe, tracer);
  if (opened.size !== undefined)
    registerStorageSize(metrics.registry, metrics.visibility, opened.size, (error) => logger.error("reading the storage size", errorFields(error)));
  let stopCountingObjects: () => void = () => {};

  // 2. Registry, over one watch cache, with its slots.
  const admission = new AdmissionChain(createAdmissionMetrics(metrics.registry, metrics.visibility));
  const tokenReviews = new TokenReviewerSlot();
  const accessReviews = new AccessReviewerSlot();
  const tokenRequest: TokenRequestOptions | undefined = options.credentials.tokenRequest;
  const served = builtinResources(profile, {
    authenticationApis: { review: tokenReviews.review, ...(tokenRequest === undefined ? {} : { tokenRequest }) },
    accessReviewer: accessReviews,
    serviceNetwork: config.serviceNetwork,
  });
  const registry = new Registry(withSchemas(enabledDefinitions(served, config.runtimeConfig), builtinCatalogue(profile)), storage, {
    admission: tracer === undefined ? admission : tracedAdmission(admission, tracer),
    watchCache: config.watchCache
      ? {
          windowSize: config.watchCacheSize,
          metrics: createWatchCacheMetrics(
            metrics.registry,
            metrics.visibility,
            (prefix) => storageMetrics.label(prefix),
            (prefix): WatchedKind => kindOfPrefix(registry.stores, prefix),
          ),
          ...options.watchCacheOptions,
        }
      : false,
    onCacheError: (error) => logger.error("watch cache re-listed", errorFields(error)),
    futureRevisionWaitMs: options.futureRevisionWaitMs,
    schemas: builtinSchemas(profile),
    lastAppliedAnnotation: profile.lastAppliedConfigAnnotation,
    defaultFieldManager: profile.serverFieldManager,
  });

  // 3. Authentication, reading service accounts, secrets and pods through the registry.
  // A legacy token's use labels its Secret with the day (kube's legacy token tracking), off the request path.
  const trackLegacyToken = legacyTokenTracker({
    client: registryClient(registry, metaGroup(profile)),
    secrets: { group: "", version: "v1", plural: "secrets" },
    label: `${profile.keyDomain}/legacy-token-last-used`,
    onError: (error) => logger.error("labelling a legacy token's secret", errorFields(error)),
  });
  const authentication = webhookConfigured("--authentication-token-webhook-config-file", () =>
    options.credentials.authentication(
      { read: (plural, namespace, name) => readCurrent(registry, plural, namespace, name) },
      { legacyTokenUsed: trackLegacyToken },
    ),
  );
  tokenReviews.fill(authentication.review);

  // 4. Authorization: the modes of --authorization-mode over indexes fed by the registry.
  const authorization = webhookConfigured("--authorization-webhook-config-file", () =>
    createAuthorization({ config: config.authorization, registry, profile, logger, freshnessWaitMs: options.futureRevisionWaitMs }),
  );
  accessReviews.fill(authorization.reviewer);

  // 5. Admission plugins, in the order they run: the flags' selection from the catalogue (kube's order), then RBAC escalation (always on).
  const client = registryClient(registry, metaGroup(profile));
  const ledger = new QuotaLedger(Date.now, { storageGroup: apiGroup(profile, "storage"), keyDomain: profile.keyDomain });
  const webhooks = registryWebhookAdmission(registry, profile, metrics.registry, authorization.authorizer, tracer);
  const conversions = conversionWebhooks(registry, profile);
  let namespaceLister: ObjectLister | undefined;
  registerPlugins({
    chain: admission,
    admission: config.admission,
    catalogue: builtinPlugins(ledger),
    context: {
      profile,
      names: admissionNames(profile),
      client,
      authorizer: authorization.authorizer,
      settings: config.admission,
      now: Date.now,
      metrics: metrics.registry,
      feed: (group, version, plural) => registry.feed(group, version, plural),
      lister: (group, version, plural) => registry.lister(group, version, plural),
      resourceOfKind: (apiVersion, kind) => {
        const store = registry.stores.find((candidate) => apiVersionOf(candidate.definition) === apiVersion && candidate.definition.kind === kind);
        return store === undefined ? undefined : { group: store.definition.group, plural: store.definition.plural, namespaced: store.namespaced };
      },
    },
    named: {
      ...(webhooks === undefined ? {} : { MutatingAdmissionWebhook: webhooks.mutating, ValidatingAdmissionWebhook: webhooks.validating }),
      NamespaceLifecycle: namespaceLifecycle({
        immortal: new Set(["default", profile.systemNamespace, profile.publicNamespace]),
        cachedNamespace: (name) => {
          namespaceLister ??= registry.lister("", "v1", "namespaces");
          return namespaceLister.get("", name);
        },
        getNamespace: async (name) => {
          // The cache answers most lookups; a namespace it has not seen yet is read from storage.
          const cached = registry.lister("", "v1", "namespaces").get("", name);
          if (cached !== undefined) return cached;
          try {
            return await registry.find("", "v1", "namespaces")?.get("", name);
          } catch (error) {
            if (error instanceof ApiError && error.code === 404) return undefined;
            throw error;
          }
        },
      }),
    },
  });
  admission.register(rbacEscalation({ group: rbacNames(profile).group, authorization }));

  // 6. Controllers, through the in-process client and shared informers over the watch cache.
  /** Resolves true when no value is left suspect (found unheld once, released at the next pass). */
  const repairAllocations = async (immediate: boolean): Promise<boolean> => {
    let settled = true;
    for (const report of await registry.repairAllocations({ immediate })) {
      if (report.released.length > 0) logger.info("released allocations no object holds", { keys: report.released });
      if (report.claimed.length > 0) logger.info("claimed allocations objects held without a claim", { keys: report.claimed });
      if (report.conflicts.length > 0) logger.error("allocations held twice", { keys: report.conflicts });
      if (report.suspects.size > 0) settled = false;
    }
    return settled;
  };
  // kube-controller-manager's certificate, bootstrap-token and endpoint controllers, by --controllers name.
  function certificateAndEndpointControllers(): Readonly<Record<string, ControllerBuilder>> {
    const names = endpointNames(profile);
    return {
      csrsigning: (informers) =>
        csrSigningController({
          client,
          informers,
          profile,
          authorities: signingAuthorities(config, options.clusterCa),
          durationMs: config.clusterSigning.durationMs,
        }),
      csrapproving: (informers) => csrApprovingController({ client, informers, profile }),
      csrcleaner: (informers) => csrCleanerController({ client, informers, profile }),
      tokencleaner: (informers) => tokenCleanerController({ client, informers, profile }),
      bootstrapsigner: (informers) => bootstrapSignerController({ client, informers, profile }),
      endpoint: (informers) => endpointController({ client, informers, names }),
      endpointslice: (informers) => endpointSliceController({ client, informers, names }),
      endpointslicemirroring: (informers) => mirroringController({ client, informers, names, skip: { namespace: "default", name: profile.serverServiceName } }),
    };
  }
  function identityLease(settings: IdentityLeaseSettings): Controller[] {
    if (!settings.enabled) return [];
    return [
      identityLeaseController({
        ...settings,
        client,
        leases: { group: apiGroup(profile, "coordination"), version: "v1", plural: "leases" },
        namespace: profile.systemNamespace,
        hostname: settings.hostname ?? hostname(),
        identityLabel: `apiserver.${profile.keyDomain}/identity`,
        identityValue: profile.serverFieldManager,
        hostnameLabel: `${profile.keyDomain}/hostname`,
        onError: (error) => logger.error("apiserver identity lease", errorFields(error)),
      }),
    ];
  }
  const apiextensions = apiGroup(profile, "apiextensions");
  let customResourcesSynced = false;
  let onCustomResourcesSynced: () => void = () => {};
  const customResourcesReady = new Promise<void>((resolve) => {
    onCustomResourcesSynced = resolve;
  });
  // Served custom resource versions read their schema from the definitions' cache when compiling it.
  const definitionFeed = registry.feed(apiextensions, "v1", "customresourcedefinitions");
  const compiledSchemas = new CompiledSchemas<VersionArtifacts>(DEFAULT_COMPILED_VERSIONS);
  // kube's aggregator: APIServices, their availability, aggregated groups in discovery and their proxy.
  const aggregation = composeAggregation({
    registry,
    client,
    config,
    customResourcesReady,
    onError: (controller, error) => logger.error(controller, errorFields(error)),
  });
  const controllers = composeControllers({
    registry,
    client,
    profile,
    logger,
    ledger,
    selection: config.controllers,
    leaderElection: options.leaderElection ?? { enabled: config.leaderElect && config.storageBackend === "etcd3" },
    rootCa: options.rootCa,
    issueLegacy:
      options.credentials.tokenIssuer === undefined ? undefined : (claims) => options.credentials.tokenIssuer?.issueLegacy(claims) ?? Promise.resolve(""),
    metrics: metrics.registry,
    loops: certificateAndEndpointControllers(),
    everywhere: [
      customResourceDefinitionController({
        client,
        definitions: { group: apiextensions, version: "v1", plural: "customresourcedefinitions" },
        finalizer: `customresourcecleanup.${apiextensions}`,
        extensionPrefixes: profile.openApiExtensionPrefixes,
        feed: { objects: definitionFeed, freshness: registry.freshness },
        builtinNames: (group) => {
          const builtin = registry.stores.filter((store) => store.definition.group === group && store.definition.openApiSchema === undefined);
          return {
            resources: builtin.flatMap((store) => [store.definition.plural, store.definition.singular, ...store.definition.shortNames]),
            kinds: builtin.flatMap((store) => [store.definition.kind, `${store.definition.kind}List`]),
          };
        },
        serve: (crd, names) => {
          const name = crd.metadata.name ?? "";
          compiledSchemas.forget(compiledPrefix(name));
          return registry.install(
            name,
            customResourceDefinitions(crd, names, {
              extensionPrefixes: profile.openApiExtensionPrefixes,
              conversionWebhooks: conversions,
              reload: () => definitionFeed.get("", name),
              compiled: compiledSchemas,
            }),
          );
        },
        unserve: (name) => {
          compiledSchemas.forget(compiledPrefix(name));
          registry.uninstall(name);
        },
        onSynced: () => {
          customResourcesSynced = true;
          onCustomResourcesSynced();
        },
        onError: (error) => logger.error("customresourcedefinitions", errorFields(error)),
      }),
      typeCheckingController({
        client,
        group: apiGroup(profile, "admissionregistration"),
        resolveKind: policyKindResolver(registry),
        resolveParamKind: policyParamKindResolver(registry),
        onError: (error) => logger.error("validatingadmissionpolicy status", errorFields(error)),
      }),
      (informers) => storageProtectionController({ client, informers, keyDomain: profile.keyDomain }),
      ...identityLease(options.identityLease ?? { enabled: config.storageBackend === "etcd3" || config.featureGates.enabled("APIServerIdentity") }),
      allocationRepairController({
        repair: () => repairAllocations(false),
        revision: config.storageBackend === "etcd3" ? undefined : () => storage.currentRevision(),
        onError: (error) => logger.error("allocation repair", errorFields(error)),
      }),
      (informers) =>
        apiServerServiceController({
          client,
          informers,
          name: profile.serverServiceName,
          clusterIp: config.serviceNetwork.clusterIpRanges[0]?.addressAt(1) ?? "",
          serverAddress: options.serverAddress,
          endpointSlices: { group: apiGroup(profile, "discovery"), version: "v1", plural: "endpointslices" },
          serviceNameLabel: `${profile.keyDomain}/service-name`,
          managedByLabel: `endpointslice.${profile.keyDomain}/managed-by`,
          managedBy: `endpointslice-controller.${profile.apiDomain}`,
          onError: (error) => logger.error("apiserver service", errorFields(error)),
        }),
      ...aggregation.controllers,
    ],
  });

  // 7. Health, endpoints and the filter chain. Each named check is served at /livez/<name>,
  // /readyz/<name> and /healthz/<name>; post-start hooks pass once their step of start() is done.
  let shuttingDown = false;
  const hooks = new Map<string, boolean>(POST_START_HOOKS.map((name) => [name, false]));
  const hookChecks: HealthCheck[] = [...hooks.keys()].map((name) => ({
    name: `poststarthook/${name}`,
    check: () => {
      if (hooks.get(name) !== true) throw new Error("not finished");
    },
  }));
  const finished = (hook: (typeof POST_START_HOOKS)[number]): void => void hooks.set(hook, true);
  let informersSynced = false;
  const base: HealthCheck[] = [
    { name: "ping", check: () => {} },
    { name: "log", check: () => {} },
    { name: "storage", check: () => void storage.currentRevision() },
  ];
  const composedAt = Date.now();
  const livez: HealthCheck[] = [
    ...base,
    ...opened.livez,
    ...encryption.healthChecks,
    ...hookChecks.map((check) => withGracePeriod(check, composedAt, config.livezGracePeriodMs)),
  ];
  const healthz: HealthCheck[] = [...base, ...opened.livez, ...hookChecks];
  const readyz: HealthCheck[] = [
    ...base,
    // kube's /readyz lists the store's liveness check (`etcd`) and then its readiness one.
    ...opened.livez,
    ...opened.readyz,
    ...encryption.healthChecks,
    // Served one by one (/readyz/controller-<name>) but not part of the whole: kube's readyz does not wait for kube-controller-manager.
    ...controllers.readyz().map((check): HealthCheck => ({ name: check.name, check: () => check.check(), aggregate: false })),
    {
      name: "informer-sync",
      check: () => {
        if (!informersSynced) throw new Error("the watch cache has not synced");
      },
    },
    ...hookChecks,
    {
      // kube's poststarthook/crd-informer-synced: custom resources stored before a restart are served.
      name: "crd-informer-synced",
      check: () => {
        if (!customResourcesSynced) throw new Error("custom resource definitions not yet served");
      },
    },
    {
      name: "shutdown",
      check: () => {
        if (shuttingDown) throw new Error("shutting down");
      },
    },
  ];
  const auditMetrics = createAuditMetrics(metrics.registry);
  const audit = options.audit === undefined ? configureAudit({ config: config.audit, profile, metrics: auditMetrics, logger }) : undefined;
  // API Priority and Fairness: its feeds are asked for before the registry starts.
  const flowControl = config.enablePriorityAndFairness
    ? createFlowControlStage({
        registry,
        profile,
        logger,
        metrics: metrics.registry,
        serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight,
        waitLimitMs: config.requestTimeoutMs / 4,
        objectCount: storageMetrics.count,
      })
    : undefined;
  const handler = filterChain({
    profile,
    logger,
    metrics,
    authenticator: tracer === undefined ? authentication.authenticator : tracedAuthenticator(authentication.authenticator, tracer),
    anonymousAuth: config.anonymousAuth,
    authorizer: tracer === undefined ? authorization.authorizer : tracedAuthorizer(authorization.authorizer, tracer),
    tracer,
    audit: options.audit ?? audit?.filter,
    compression: config.featureGates.enabled("APIResponseCompression"),
    // With priority and fairness off, kube's max-in-flight limiter takes its place.
    flowControl:
      flowControl?.filter ??
      maxInFlightFilter({
        nonMutatingLimit: config.maxRequestsInflight,
        mutatingLimit: config.maxMutatingRequestsInflight,
        onRejected: (context) =>
          metrics.requestTerminated({ info: context.info, method: context.request.method, contentType: context.request.headers["content-type"] }, 429),
      }),
    requestTimeout: {
      requestTimeoutMs: config.requestTimeoutMs,
      onTimeout: (context) =>
        metrics.requestTerminated({ info: context.info, method: context.request.method, contentType: context.request.headers["content-type"] }, 504),
      onLateError: (error) => {
        if (!(error instanceof ApiError) || error.code >= 500) logger.error("request failed after its timeout", errorFields(error));
      },
    },
    resources: createResourceHandler({
      registry,
      profile,
      computed: new Map([
        [
          computedKey("", "v1", "componentstatuses"),
          componentStatuses({
            controllers: controllers.readyz().length === 0 ? undefined : () => controllerManagerHealth(controllers.readyz()),
            storage: async () => {
              void storage.currentRevision();
              for (const check of opened.livez) await check.check(AbortSignal.timeout(config.etcdHealthcheckTimeoutMs));
            },
          }),
        ],
      ]),
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
      features: {
        watchList: config.featureGates.enabled("WatchList"),
        listChunking: config.featureGates.enabled("APIListChunking"),
        remainingItemCount: config.featureGates.enabled("RemainingItemCount"),
      },
      onDeprecatedRequest: (definition, info) =>
        metrics.requestedDeprecatedApi({
          group: definition.group,
          version: definition.version,
          resource: definition.plural,
          subresource: info.subresource,
          removedRelease: definition.deprecation?.removedIn ?? "",
        }),
    }),
    nonResources: createNonResourceHandler({
      registry,
      profile,
      livez,
      readyz,
      healthz,
      serverAddress: options.serverAddress,
      issuerDiscovery: options.credentials.issuerDiscovery,
      metrics: metrics.registry,
      snapshot: opened.snapshot,
      debug: flowControl?.debug,
      aggregation: aggregation.aggregation,
    }),
    aggregated: aggregation.route,
  });

  /**
   * kube's `start-cluster-authentication-info-controller`: the system namespace's
   * `extension-apiserver-authentication` ConfigMap holds the CAs and proxy headers this server
   * trusts (extension API servers and their `extension-apiserver-authentication-reader` Role
   * read it); written at each start when it differs, other keys left as they are.
   */
  async function publishAuthenticationInfo(): Promise<void> {
    const data = options.credentials.authenticationInfo?.();
    const configMaps = registry.find("", "v1", "configmaps");
    if (data === undefined || configMaps === undefined) return;
    const namespace = profile.systemNamespace;
    const name = EXTENSION_AUTHENTICATION_CONFIGMAP;
    const current = await configMaps.get(namespace, name).catch((error: unknown) => {
      if (error instanceof ApiError && error.reason === "NotFound") return undefined;
      throw error;
    });
    const held = (current?.["data"] ?? {}) as Record<string, unknown>;
    if (current === undefined) {
      await configMaps.create(namespace, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { ...data } }).catch((error: unknown) => {
        // Another server of the same store wrote it first: the next start brings it up to date.
        if (!(error instanceof ApiError && error.reason === "AlreadyExists")) throw error;
      });
      return;
    }
    if (Object.entries(data).every(([key, value]) => held[key] === value)) return;
    await configMaps.update(namespace, name, {
      build: (old) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        ...old,
        metadata: { ...(old?.metadata ?? {}), name, namespace },
        data: { ...((old?.["data"] ?? {}) as Record<string, string>), ...data },
      }),
    });
  }

  /** Creates a bootstrap object unless it exists; true when it was created. */
  async function createIfMissing(group: string, version: string, plural: string, namespace: string, object: ApiObject): Promise<boolean> {
    const store = registry.find(group, version, plural);
    if (store === undefined) return false;
    // Found in the watch cache on every start but the first: no write (admission, managedFields) to be refused.
    if (
      await store.get(namespace, object.metadata.name ?? "").then(
        () => true,
        (error: unknown) => (error instanceof ApiError && error.reason === "NotFound" ? false : Promise.reject(error)),
      )
    )
      return false;
    try {
      await store.create(namespace, object);
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.reason === "AlreadyExists") return false;
      throw error;
    }
  }

  return {
    handler,
    registry,
    storage,
    metrics,
    startCompactor: (compactorOptions) => opened.startCompactor?.(compactorOptions) ?? startCompactor(opened.storage, compactorOptions),
    async start(startOptions = {}) {
      await opened.ready();
      const moved = await upgradeLegacyKeys(
        storage,
        served.filter((d) => d.virtual === undefined).map((d) => d.storedAs ?? d),
      );
      if (moved > 0) logger.info("storage: moved objects from the pre-kube key layout", { objects: moved });
      try {
        await registry.start();
      } catch (error) {
        // A torn record met as the watch cache reads the whole store: refused like a store found damaged on open, never served.
        if (error instanceof StoredValueError) throw opened.damaged?.(error) ?? new StartupError(`storage: ${error.message}`, { cause: error });
        if (error instanceof DamagedStoreError) throw new StartupError(error.message, { cause: error });
        throw error;
      }
      opened.loaded?.();
      markStartup("store and watch cache loaded");
      informersSynced = true;
      // Before any controller writes and before the listener: a store no other server shares has no write in flight.
      await repairAllocations(config.storageBackend !== "etcd3");
      await startOptions.serving?.();
      await authorization.start();
      finished("rbac/bootstrap-roles");
      const namespaces = registry.find("", "v1", "namespaces");
      if (namespaces === undefined) throw new Error("namespaces are not served");
      let firstStart = false;
      for (const name of ["default", profile.systemNamespace, profile.publicNamespace, profile.nodeLeaseNamespace]) {
        if (await createIfMissing("", "v1", "namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name } })) firstStart ||= name === "default";
      }
      // Bootstrap objects made once, at the first start (a user may change or delete them): the spec's Limits-table LimitRange.
      if (firstStart) await createIfMissing("", "v1", "limitranges", "default", DEFAULT_LIMIT_RANGE);
      finished("start-system-namespaces-controller");
      // The default Roles and RoleBindings of the system and public namespaces, now that they exist.
      await authorization.startNamespaced();
      await publishAuthenticationInfo();
      const scheduling = apiGroup(profile, "scheduling");
      for (const system of SYSTEM_PRIORITY_CLASSES) {
        await createIfMissing(scheduling, "v1", "priorityclasses", "", {
          apiVersion: `${scheduling}/v1`,
          kind: "PriorityClass",
          metadata: { name: system.name },
          value: system.value,
          description: system.description,
        });
      }
      finished("scheduling/bootstrap-system-priority-classes");
      await flowControl?.start();
      stopCountingObjects = pollStorageObjects({
        prefixes: () => registry.stores.map((store) => store.prefix("")),
        count: (prefix) => storage.count(prefix),
        metrics: storageMetrics,
        periodMs: config.etcdCountMetricPollPeriodMs,
        onError: (error) => logger.error("counting stored objects", errorFields(error)),
      });
      // The API server's own controllers (custom resource definitions, the server's Service, …), as kube's post-start hooks start them.
      controllers.startOwn();
      // Ready once the definitions stored before are served again (bounded: readyz tells if not).
      await Promise.race([customResourcesReady, new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref())]);
      finished("start-cluster-controllers");
      markStartup("bootstrap objects, ready");
    },
    async startControllers(timeoutMs = 10_000) {
      // One turn of the event loop first: a /readyz request that arrived meanwhile is answered before their first sync.
      await new Promise<void>((resolve) => setImmediate(resolve));
      controllers.startElected();
      await controllers.waitForSync(timeoutMs);
      markStartup("controllers synced");
    },
    beginShutdown() {
      shuttingDown = true;
    },
    async stop() {
      shuttingDown = true;
      stopCountingObjects();
      await controllers.stop();
      await flowControl?.stop();
      await authorization.stop();
      webhooks?.close();
      conversions.close();
      await registry.stop();
      encryption.stop();
      await audit?.shutdown();
      await tracing?.shutdown();
      if (options.storage === undefined) await storage.close();
    },
  };
}

/** What a watch cache's storage prefix holds, for the watch events' labels: the first store served from it. */
interface WatchedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

function kindOfPrefix(stores: readonly { prefix(namespace: string): string; readonly definition: WatchedKind }[], prefix: string): WatchedKind {
  const definition = stores.find((store) => store.prefix("") === prefix)?.definition;
  return definition === undefined ? { group: "", version: "", kind: "" } : { group: definition.group, version: definition.version, kind: definition.kind };
}
