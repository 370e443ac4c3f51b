import { ApiError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { metaGroup, type Profile } from "../api/profile.js";
import { namespaceLifecycle } from "../admission/plugins/namespace-lifecycle.js";
import { admissionChain } from "../admission/plugin.js";
import type { Authenticator } from "../auth/authenticator.js";
import type { Authorizer } from "../authz/authorizer.js";
import { registryClient } from "../controllers/client.js";
import type { Controller } from "../controllers/controller.js";
import { namespaceController } from "../controllers/namespace/namespace-controller.js";
import { createResourceHandler } from "../endpoints/resource-handler.js";
import { Registry } from "../registry/registry.js";
import { Cacher } from "../registry/cacher/cacher.js";
import type { WatchCacheOptions } from "../registry/cacher/watch-cache.js";
import { coreResources } from "../registry/resources/core/index.js";
import { chain, requireInfo, type Handler } from "../request/context.js";
import type { Storage } from "../storage/interface.js";
import { errorFields, type Logger } from "../util/logger.js";
import { authenticateFilter } from "./filters/authenticate.js";
import { authorizeFilter } from "./filters/authorize.js";
import { errorFunnel } from "./filters/error-funnel.js";
import { requestInfoFilter } from "./filters/request-info.js";
import { requestLogFilter } from "./filters/request-log.js";
import type { HealthCheck } from "./health/health.js";
import { createNonResourceHandler } from "./routes.js";

export interface ApiServerOptions {
  readonly storage: Storage;
  readonly profile: Profile;
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly anonymousAuth: boolean;
  readonly logger: Logger;
  /** How long reads wait for an unreached resourceVersion before 504 (default 3 s). */
  readonly futureRevisionWaitMs?: number;
  /** A watch without timeoutSeconds lasts between this and twice this (default 1800 s). */
  readonly minRequestTimeoutSeconds?: number;
  /** Interval of periodic watch BOOKMARKs (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** Serve lists and watches from the watch cache (kube's --watch-cache); default true. */
  readonly watchCache?: boolean | Partial<WatchCacheOptions>;
  /** `host:port` clients reach the server at, for `/api`'s serverAddressByClientCIDRs. */
  readonly serverAddress: () => string;
}

/** The API server without a listener: the filter chain, the registry, controllers and health. */
export interface ApiServer {
  readonly handler: Handler;
  readonly registry: Registry;
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
  ]);
  const cacheOptions = options.watchCache ?? true;
  const cacher = cacheOptions === false ? undefined : new Cacher(storage, { ...(cacheOptions === true ? {} : cacheOptions), onError: (error) => logger.error("watch cache re-listed", errorFields(error)) });
  const created = new Registry(coreResources(profile), storage, { admission, cacher, futureRevisionWaitMs: options.futureRevisionWaitMs });
  registry = created;
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
  const resources = createResourceHandler({ registry: created, profile, bookmarkIntervalMs: options.bookmarkIntervalMs, minRequestTimeoutSeconds: options.minRequestTimeoutSeconds });
  const nonResources = createNonResourceHandler({ registry: created, profile, livez, readyz, serverAddress: options.serverAddress });
  const route: Handler = async (context) => {
    const info = requireInfo(context);
    return info.kind === "resource" ? resources(context, info) : nonResources(context, info);
  };
  const handler = chain(
    [
      requestLogFilter(logger),
      errorFunnel((error) => logger.error("request failed", errorFields(error))),
      requestInfoFilter(),
      authenticateFilter(options.authenticator, { anonymous: options.anonymousAuth }),
      authorizeFilter(options.authorizer),
    ],
    route,
  );
  const controllers: Controller[] = [
    namespaceController({
      client: registryClient(created, metaGroup(profile)),
      finalizer: profile.namespaceFinalizer,
      onError: (error) => logger.error("namespace controller", errorFields(error)),
    }),
  ];
  const controllerStop = new AbortController();
  const running: Promise<void>[] = [];
  return {
    handler,
    registry: created,
    async start() {
      await cacher?.start();
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
        running.push(controller.run(controllerStop.signal).catch((error: unknown) => logger.error(`controller ${controller.name} stopped`, errorFields(error))));
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
      await cacher?.stop();
    },
  };
}
