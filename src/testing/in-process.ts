import { ORCH_PROFILE, type Profile } from "../api/profile.js";
import { unionAuthenticator, type Authenticator } from "../auth/authenticator.js";
import { bearerToken } from "../auth/bearer-token.js";
import { withResponseHeaders, type ApiRequest, type ApiResponse, type RequestContext, type UserInfo } from "../request/context.js";
import { composeApiServer, type ApiServer, type ComposeOptions } from "../cli/compose.js";
import { defaultConfig } from "../cli/flags.js";
import type { Config } from "../cli/config.js";
import type { AuthorizationConfig } from "../authz/modes.js";
import type { RuntimeConfig, ServiceNetwork, WatchCacheOptions } from "../registry/index.js";
import type { Storage } from "../storage/interface.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { SILENT_LOGGER } from "../util/logger.js";
import type { AuditFilterOptions } from "../server/filters/audit.js";
import type { FeatureGates } from "../util/feature-gates.js";

/** A response read whole, with the body parsed as JSON when it is JSON. */
export interface TestResponse {
  readonly status: number;
  readonly headers: ApiResponse["headers"];
  readonly text: string;
  readonly json: Record<string, unknown>;
}

export interface CallOptions {
  /** JSON (a value, or its text), or bytes sent as they are (give their content-type header). */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Who calls: a bearer token user from TEST_TOKENS, or none (anonymous). Default admin. */
  readonly as?: "admin" | "alice" | "bob" | "node1" | "anonymous";
  readonly signal?: AbortSignal;
}

/** Users the in-process server knows by bearer token. */
const TOKENS: Record<string, UserInfo> = {
  "admin-token": { name: "admin", groups: ["system:masters"] },
  "alice-token": { name: "alice", groups: ["developers"] },
  "bob-token": { name: "bob", groups: ["reviewers"] },
  "node1-token": { name: "system:node:n1", groups: ["system:nodes"] },
};

function tokenAuthenticator(): Authenticator {
  return {
    name: "test-tokens",
    async authenticate(request) {
      const token = bearerToken(request);
      if (token === undefined) return { kind: "none" };
      const user = TOKENS[token];
      return user === undefined ? { kind: "rejected", reason: "unknown token" } : { kind: "ok", user };
    },
  };
}

async function readBody(body: ApiResponse["body"]): Promise<string> {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  let out = "";
  for await (const chunk of body) out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return out;
}

/**
 * The whole pipeline in process, no sockets: `call(method, path)` goes through every filter.
 * For tests; `stop()` ends controllers and closes the store.
 */
export interface InProcessOptions {
  readonly storage?: Storage;
  readonly profile?: Profile;
  /** `false` = `--watch-cache=false`; an object tunes the cache. */
  readonly watchCache?: boolean | Partial<WatchCacheOptions>;
  readonly futureRevisionWaitMs?: number;
  readonly bookmarkIntervalMs?: number;
  readonly runtimeConfig?: RuntimeConfig;
  readonly authorization?: AuthorizationConfig;
  /** `--service-cluster-ip-range` / `--service-node-port-range`, parsed; default kube's. */
  readonly serviceNetwork?: ServiceNetwork;
  /** Admission flags (`--enable-admission-plugins`, …) over the defaults. */
  readonly admission?: Partial<Config["admission"]>;
  /** `--encryption-provider-config` (and its automatic reload). */
  readonly encryptionProviderConfig?: string;
  readonly encryptionProviderConfigAutomaticReload?: boolean;
  /** Audit policy and backend (the `--audit-*` flags' result). */
  readonly audit?: AuditFilterOptions;
  /** `--feature-gates` (default: every gate at its default). */
  readonly featureGates?: FeatureGates;
  /** API Priority and Fairness flags (`--enable-priority-and-fairness`, the in-flight limits, `--request-timeout`) over the defaults. */
  readonly flowControl?: Partial<Pick<Config, "enablePriorityAndFairness" | "maxRequestsInflight" | "maxMutatingRequestsInflight" | "requestTimeoutMs">>;
  /** Tracing (with APIServerTracing on in `featureGates`): sampling and the exporter spans go to. */
  readonly tracing?: ComposeOptions["tracing"];
  /** `--etcd-count-metric-poll-period` and `--show-hidden-metrics-for-version` over the defaults. */
  readonly metrics?: Partial<Pick<Config, "etcdCountMetricPollPeriodMs" | "showHiddenMetricsForVersion">>;
  /** The cluster CA the CSR signers issue with; none = they do not sign. */
  readonly clusterCa?: { readonly certificate: string; readonly key: string };
  /** `--controllers` (default `*`). */
  readonly controllers?: readonly string[];
  /** The root CA the publisher puts in every namespace (default none: the publisher does not run). */
  readonly rootCa?: string;
  /** Lease election of the controllers (default off), with test timings. */
  readonly leaderElection?: ComposeOptions["leaderElection"];
  /** The identity Lease (host name, timings); default off for in-process servers on memory. */
  readonly identityLease?: ComposeOptions["identityLease"];
}

export async function inProcessServer(options: InProcessOptions = {}): Promise<{
  server: ApiServer;
  storage: Storage;
  call(method: string, path: string, options?: CallOptions): Promise<TestResponse>;
  /** Calls without reading a streamed body (watches). */
  raw(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}> {
  const storage = options.storage ?? new MemoryStorage();
  const authenticator = unionAuthenticator([tokenAuthenticator()]);
  const defaults = defaultConfig();
  const server = composeApiServer({
    config: {
      ...defaults,
      profile: options.profile ?? ORCH_PROFILE,
      anonymousAuth: true,
      watchCache: options.watchCache !== false,
      runtimeConfig: options.runtimeConfig ?? defaults.runtimeConfig,
      authorization: options.authorization ?? defaults.authorization,
      serviceNetwork: options.serviceNetwork ?? defaults.serviceNetwork,
      admission: { ...defaults.admission, ...options.admission },
      encryptionProviderConfig: options.encryptionProviderConfig,
      encryptionProviderConfigAutomaticReload: options.encryptionProviderConfigAutomaticReload ?? false,
      featureGates: options.featureGates ?? defaults.featureGates,
      ...options.flowControl,
      ...options.metrics,
      controllers: options.controllers ?? defaults.controllers,
    },
    audit: options.audit,
    tracing: options.tracing,
    rootCa: options.rootCa,
    leaderElection: options.leaderElection,
    identityLease: options.identityLease,
    logger: SILENT_LOGGER,
    storage,
    credentials: { authentication: () => ({ authenticator, review: async () => ({ error: "no token reviews in process" }) }), tokenRequest: undefined },
    serverAddress: () => "127.0.0.1:6443",
    watchCacheOptions: typeof options.watchCache === "object" ? options.watchCache : undefined,
    futureRevisionWaitMs: options.futureRevisionWaitMs,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    clusterCa: options.clusterCa,
  });
  await server.start();
  await server.startControllers();
  const raw = async (method: string, path: string, callOptions: CallOptions = {}): Promise<ApiResponse> => {
    const url = new URL(path, "https://in-process");
    const bodyBytes =
      callOptions.body === undefined
        ? Buffer.alloc(0)
        : callOptions.body instanceof Uint8Array
          ? Buffer.from(callOptions.body)
          : Buffer.from(typeof callOptions.body === "string" ? callOptions.body : JSON.stringify(callOptions.body));
    const who = callOptions.as ?? "admin";
    const headers: Record<string, string> = { ...(callOptions.body === undefined ? {} : { "content-type": "application/json" }), ...callOptions.headers };
    if (who !== "anonymous") headers["authorization"] = `Bearer ${who}-token`;
    const request: ApiRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: async (limit) => {
        if (bodyBytes.length > limit) {
          const { ApiError } = await import("../api/errors.js");
          throw new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
        }
        return bodyBytes;
      },
      peerCertificate: undefined,
      signal: callOptions.signal ?? new AbortController().signal,
    };
    // The request's own headers (Audit-ID, flow control's) after the answer's, as the listener writes them.
    const context: RequestContext = { request, warnings: [] };
    return withResponseHeaders(context, await server.handler(context));
  };
  return {
    server,
    storage,
    raw,
    async call(method, path, callOptions) {
      const response = await raw(method, path, callOptions);
      const text = await readBody(response.body);
      let json: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed === "object" && parsed !== null) json = parsed as Record<string, unknown>;
      } catch {
        // not JSON (health text, YAML)
      }
      return { status: response.status, headers: response.headers, text, json };
    },
    async stop() {
      await server.stop();
      await storage.close();
    },
  };
}
