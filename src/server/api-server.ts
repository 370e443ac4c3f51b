import { ApiError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { apiGroup, metaGroup, type Profile } from "../api/profile.js";
import { namespaceLifecycle } from "../admission/plugins/namespace-lifecycle.js";
import { admissionChain } from "../admission/plugin.js";
import { rbacEscalation } from "../admission/plugins/rbac-escalation.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { IssuerDiscovery } from "../auth/service-account/discovery.js";
import { DEFAULT_AUTHORIZATION, type AuthorizationConfig } from "../authz/modes.js";
import { rbacNames } from "../authz/rbac/bootstrap-policy.js";
import { registryClient } from "../controllers/client.js";
import type { Controller } from "../controllers/controller.js";
import { namespaceController } from "../controllers/namespace/namespace-controller.js";
import { createResourceHandler } from "../endpoints/resource-handler.js";
import { Registry } from "../registry/registry.js";
import { Cacher } from "../registry/cacher/cacher.js";
import type { WatchCacheOptions } from "../registry/cacher/watch-cache.js";
import { builtinSchemas } from "../api/schema/builtin.js";
import type { AuthenticationApis } from "../registry/resources/authentication/index.js";
import { builtinResources } from "../registry/resources/served.js";
import { enabledDefinitions, type RuntimeConfig } from "../registry/runtime-config.js";
import { withSchemas } from "../registry/schemas.js";
import { builtinCatalogue } from "../api/schema/catalogue.js";
import { chain, requireInfo, type Handler } from "../request/context.js";
import type { Storage } from "../storage/interface.js";
import { errorFields, type Logger } from "../util/logger.js";
import { authenticateFilter } from "./filters/authenticate.js";
import { authorizeFilter } from "./filters/authorize.js";
import { errorFunnel } from "./filters/error-funnel.js";
import { impersonateFilter } from "./filters/impersonate.js";
import { requestInfoFilter } from "./filters/request-info.js";
import { requestLogFilter } from "./filters/request-log.js";
import { createAuthorization, type AuthorizationStage } from "./authorization/authorization.js";
import type { HealthCheck } from "./health/health.js";
import { createNonResourceHandler } from "./routes.js";
import { metricsFilter } from "./filters/metrics.js";
import { createMetrics, type ApiMetrics } from "./metrics/metrics.js";

export interface ApiServerOptions {
  readonly storage: Storage;
  readonly profile: Profile;
  readonly authenticator: Authenticator;
  /** `--authorization-mode` and its files; default `Node,RBAC`. */
  readonly authorization?: AuthorizationConfig;
  readonly anonymousAuth: boolean;
  readonly logger: Logger;
  /** How long reads wait for an unreached resourceVersion before 504 (default 3 s). */
  readonly futureRevisionWaitMs?: number;
  /** `--runtime-config`: group versions turned on or off. */
  readonly runtimeConfig?: RuntimeConfig;
  /** A watch without timeoutSeconds lasts between this and twice this (default 1800 s). */
  readonly minRequestTimeoutSeconds?: number;
  /** Interval of periodic watch BOOKMARKs (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** Serve lists and watches from the watch cache (kube's --watch-cache); default true. */
  readonly watchCache?: boolean | Partial<WatchCacheOptions>;
  /** `host:port` clients reach the server at, for `/api`'s serverAddressByClientCIDRs. */
  readonly serverAddress: () => string;
  /** TokenReview and `serviceaccounts/{name}/token` (TokenRequest); neither is served without it. */
  readonly authenticationApis?: AuthenticationApis;
  /** The service-account issuer's OIDC discovery documents, when the issuer is discoverable. */
  readonly issuerDiscovery?: IssuerDiscovery;
  /** The metrics served at /metrics; when not given, a new registry without process metrics. */
  readonly metrics?: ApiMetrics;
}

/** The API server without a listener: the filter chain, the registry, controllers and health. */
export interface ApiServer {
  readonly handler: Handler;
  readonly registry: Registry;
  readonly metrics: ApiMetrics;
  /** Creates the built-in namespaces and starts controllers. */
  start(): Promise<void>;
  /** Marks the server not ready (readyz fails) ahead of a stop. */
  beginShutdown(): void;
  /** Stops controllers. The storage is the caller's to close. */
  stop(): Promise<void>;
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const { profile, logger, storage } = options;
  let registry: Registry | undefined;
  let authorization: AuthorizationStage | undefined;
  const authorizationStage = (): AuthorizationStage => {
    if (authorization === undefined) throw new Error("authorization is not set up yet");
    return authorization;
  };
  const admission = admissionChain([
    namespaceLifecycle({
      immortal: new Set(["default", profile.systemNamespace, profile.publicNamespace]),
      getNamespace: async (name) => {
        const namespaces = registry?.find("", "v1", "namespaces");
        // The cache answers most lookups; a namespace it has not seen yet is read from storage.
        const cached = namespaces?.watchCache?.cache.get(namespaces.key("", name));
        if (cached !== undefined) return JSON.parse(cached.json) as ApiObject;
        try {
          return await namespaces?.get("", name);
        } catch (error) {
          if (error instanceof ApiError && error.code === 404) return undefined;
          throw error;
        }
      },
    }),
    rbacEscalation({ group: rbacNames(profile).group, authorization: authorizationStage }),
  ]);
  const cacheOptions = options.watchCache ?? true;
  const cacher =
    cacheOptions === false
      ? undefined
      : new Cacher(storage, { ...(cacheOptions === true ? {} : cacheOptions), onError: (error) => logger.error("watch cache re-listed", errorFields(error)) });
  const served = builtinResources(profile, { authenticationApis: options.authenticationApis, accessReviewer: () => authorizationStage().reviewer });
  const definitions = withSchemas(enabledDefinitions(served, options.runtimeConfig ?? new Map()), builtinCatalogue(profile));
  const created = new Registry(definitions, storage, {
    admission,
    cacher,
    futureRevisionWaitMs: options.futureRevisionWaitMs,
    schemas: builtinSchemas(profile),
    lastAppliedAnnotation: profile.lastAppliedConfigAnnotation,
    defaultFieldManager: profile.serverFieldManager,
  });
  registry = created;
  authorization = createAuthorization({
    config: options.authorization ?? DEFAULT_AUTHORIZATION,
    registry: created,
    storage,
    profile,
    cacher,
    logger,
    freshnessWaitMs: options.futureRevisionWaitMs,
  });
  const authorizer = authorization.authorizer;
  let started = false;
  let shuttingDown = false;
  const livez: HealthCheck[] = [{ name: "ping", check: () => {} }];
  const readyz: HealthCheck[] = [
    { name: "ping", check: () => {} },
    {
      name: "storage",
      check: () => {
        storage.currentRevision();
      },
    },
    {
      name: "bootstrap-namespaces",
      check: () => {
        if (!started) throw new Error("not started");
      },
    },
    {
      name: "shutdown",
      check: () => {
        if (shuttingDown) throw new Error("shutting down");
      },
    },
  ];
  const metrics = options.metrics ?? createMetrics({ processMetrics: false });
  const resources = createResourceHandler({
    registry: created,
    profile,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    onDeprecatedRequest: (definition, info) =>
      metrics.requestedDeprecatedApi({
        group: definition.group,
        version: definition.version,
        resource: definition.plural,
        subresource: info.subresource,
        removedRelease: definition.deprecation?.removedIn ?? "",
      }),
  });
  const nonResources = createNonResourceHandler({
    registry: created,
    profile,
    livez,
    readyz,
    serverAddress: options.serverAddress,
    issuerDiscovery: options.issuerDiscovery,
    metrics: metrics.registry,
  });
  const route: Handler = async (context) => {
    const info = requireInfo(context);
    return info.kind === "resource" ? resources(context, info) : nonResources(context, info);
  };
  const handler = chain(
    [
      requestLogFilter(logger),
      metricsFilter(metrics),
      errorFunnel((error) => logger.error("request failed", errorFields(error))),
      requestInfoFilter(),
      authenticateFilter(options.authenticator, { anonymous: options.anonymousAuth }),
      impersonateFilter(authorizer, { authenticationGroup: apiGroup(profile, "authentication") }),
      authorizeFilter(authorizer),
    ],
    route,
  );
  const controllers: Controller[] = [
    namespaceController({
      client: registryClient(created, metaGroup(profile)),
      finalizer: profile.namespaceFinalizer,
      onError: (error) => logger.error("namespace controller", errorFields(error)),
    }),
    ...authorization.controllers,
  ];
  const controllerStop = new AbortController();
  const running: Promise<void>[] = [];
  return {
    handler,
    registry: created,
    metrics,
    async start() {
      await cacher?.start();
      await authorizationStage().start();
      const namespaces = created.find("", "v1", "namespaces");
      if (namespaces === undefined) throw new Error("namespaces are not served");
      for (const name of ["default", profile.systemNamespace, profile.publicNamespace, profile.nodeLeaseNamespace]) {
        try {
          await namespaces.create("", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
        } catch (error) {
          if (!(error instanceof ApiError && error.reason === "AlreadyExists")) throw error;
        }
      }
      for (const controller of controllers) {
        running.push(
          controller.run(controllerStop.signal).catch((error: unknown) => logger.error(`controller ${controller.name} stopped`, errorFields(error))),
        );
      }
      started = true;
    },
    beginShutdown() {
      shuttingDown = true;
    },
    async stop() {
      shuttingDown = true;
      controllerStop.abort();
      await Promise.allSettled(running);
      await authorizationStage().stop();
      await cacher?.stop();
    },
  };
}
