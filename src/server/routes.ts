import { ApiError } from "../api/errors.js";
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, type IssuerDiscovery } from "../auth/service-account/discovery.js";
import type { Profile } from "../api/profile.js";
import { createAggregatedDiscovery, type DiscoveryDocument } from "../endpoints/aggregated-discovery.js";
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from "../endpoints/discovery.js";
import type { Aggregation } from "../endpoints/aggregation/served-groups.js";
import { negotiate } from "../codec/negotiate.js";
import { parseAccept } from "../codec/media-type.js";
import { foreignGroup, foreignGroupMessage, metaGroup } from "../api/profile.js";
import { builtinCatalogue } from "../api/schema/catalogue.js";
import { createOpenApi } from "../endpoints/openapi.js";
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_RESPONSE } from "../codec/openapi-v2-protobuf.js";
import { respondJson } from "../endpoints/respond.js";
import type { Registry } from "../registry/index.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { NonResourceRequestInfo } from "../request/request-info.js";
import type { Registry as MetricsRegistry } from "prom-client";
import { runHealth, type HealthCheck } from "./health/health.js";
import { gzipBody } from "../util/gzip.js";

export interface NonResourceOptions {
  readonly registry: Registry;
  readonly profile: Profile;
  readonly livez: readonly HealthCheck[];
  readonly readyz: readonly HealthCheck[];
  /** `/healthz` (deprecated): default the readiness checks. */
  readonly healthz?: readonly HealthCheck[];
  readonly serverAddress: () => string;
  /** The service-account issuer's OIDC documents (`/.well-known/openid-configuration`, `/openid/v1/jwks`). */
  readonly issuerDiscovery?: IssuerDiscovery;
  /** Served at /metrics in Prometheus' text format. */
  readonly metrics?: MetricsRegistry;
  /** `GET /snapshot`: a consistent copy of the store file (SQLite), for `orch-apiserver snapshot save`. Authorized as a non-resource URL (cluster-admin). */
  readonly snapshot?: () => Promise<Uint8Array>;
  /** Plain-text debug pages by path (`/debug/api_priority_and_fairness/dump_queues`), given the query. */
  readonly debug?: ReadonlyMap<string, (query: URLSearchParams) => string>;
  /** Aggregated groups listed in discovery (their requests are proxied before they get here). */
  readonly aggregation?: Aggregation;
}

function notFound(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", { details: {} });
}

/** Version facts served at /version, shaped as kube's version.Info. */
export function versionInfo(profile: Profile): Record<string, string> {
  const match = /^v(\d+)\.(\d+)/.exec(profile.gitVersion);
  return {
    major: match?.[1] ?? "1",
    minor: match?.[2] ?? "0",
    gitVersion: profile.gitVersion,
    gitCommit: "",
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}

/** Serves aggregated discovery from the kept documents, with an ETag: If-None-Match gets 304. */
function respondDiscovery(context: RequestContext, document: DiscoveryDocument, contentType: string): ApiResponse {
  const headers = { "content-type": contentType, etag: document.etag, vary: "Accept" };
  if (context.request.headers["if-none-match"] === document.etag) return { status: 304, headers, body: "" };
  return { status: 200, headers, body: document.body, keptGzip: { of: document.body, gzipped: () => document.gzipped() } };
}

/** Each kept OpenAPI document's gzip, made once (the documents are kept until the served resources change). */
const openApiGzip = new WeakMap<object, Promise<Uint8Array>>();

/** A year from now as an HTTP date: kube's `Expires` for a v3 document fetched by its current hash. */
function aYearFromNow(): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString();
}

/** kube's answer to a v3 document asked for by a hash that is no longer its own: 301 to the current one. */
function redirectToHash(location: string, etag: string): ApiResponse {
  return {
    status: 301,
    headers: { location, etag: `"${etag}"`, vary: "Accept", "content-type": "text/html; charset=utf-8" },
    body: `<a href="${location}">Moved Permanently</a>.\n\n`,
  };
}

/**
 * A built OpenAPI document (or the v3 index) with its ETag: 304 on If-None-Match; a v3 document
 * fetched with its current `hash` may be cached forever (`public, immutable`, expiring in a year),
 * as kube answers; the others get the listener's `no-cache, private`.
 */
function respondOpenApi(
  context: RequestContext,
  document: { readonly body: string | Uint8Array; readonly etag: string },
  caching: "mutable" | "immutable",
  contentType = "application/json",
): ApiResponse {
  const etag = `"${document.etag}"`;
  const headers: Record<string, string> = { "content-type": contentType, etag, vary: "Accept" };
  if (caching === "immutable") {
    headers["cache-control"] = "public, immutable";
    headers["expires"] = aYearFromNow();
  }
  if (context.request.headers["if-none-match"] === etag) return { status: 304, headers, body: "" };
  const gzipped = (): Promise<Uint8Array> => {
    let gzip = openApiGzip.get(document);
    if (gzip === undefined) {
      gzip = gzipBody(document.body);
      openApiGzip.set(document, gzip);
    }
    return gzip;
  };
  return { status: 200, headers, body: document.body, keptGzip: { of: document.body, gzipped } };
}

/**
 * kube-openapi's negotiation: the form of the first Accept clause (by quality, then the more
 * specific first) that one of `forms` matches, wildcards included; undefined when none does (406).
 */
function openApiForm<Form extends string>(accept: string | undefined, forms: readonly (readonly [string, Form])[]): Form | undefined {
  const wildcards = (type: string): number => (type === "*/*" ? 2 : type.endsWith("/*") ? 1 : 0);
  const clauses = parseAccept(accept)
    .map((clause, index) => ({ clause, index }))
    .sort((a, b) => b.clause.quality - a.clause.quality || wildcards(a.clause.type) - wildcards(b.clause.type) || a.index - b.index);
  for (const { clause } of clauses) {
    const [type = "", subtype = ""] = clause.type.split("/");
    for (const [mediaType, form] of forms) {
      const [formType, formSubtype] = mediaType.split("/");
      if ((type === formType || type === "*") && (subtype === formSubtype || subtype === "*")) return form;
    }
  }
  return undefined;
}

/** kube-openapi's answer to an Accept it serves nothing for: 406 without a body. */
function notAcceptable(): ApiResponse {
  return { status: 406, headers: { vary: "Accept" }, body: "" };
}

const OPENAPI_V2_FORMS = [
  ["application/json", "json"],
  [OPENAPI_V2_PROTOBUF, "protobuf"],
  [OPENAPI_V2_PROTOBUF_RESPONSE, "protobuf"],
] as const;

/** Discovery, version and health: everything that is not a resource. */
export function createNonResourceHandler(options: NonResourceOptions): (context: RequestContext, info: NonResourceRequestInfo) => Promise<ApiResponse> {
  const openApi = createOpenApi(options.registry, options.profile, builtinCatalogue(options.profile));
  const discoveryGroup = `apidiscovery.${options.profile.apiDomain}`;
  const aggregation = options.aggregation;
  const discovery = createAggregatedDiscovery(options.registry, aggregation === undefined ? {} : { aggregation });
  return async function handleNonResource(context, info) {
    const path = info.path.length > 1 ? info.path.replace(/\/+$/, "") : info.path;
    const { query, signal } = context.request;
    for (const [kind, checks] of [
      ["livez", options.livez],
      ["readyz", options.readyz],
      ["healthz", options.healthz ?? options.readyz],
    ] as const) {
      if (path === `/${kind}` || path.startsWith(`/${kind}/`)) {
        if (info.verb !== "get") throw new ApiError(405, "MethodNotAllowed", "only GET is allowed");
        return runHealth(kind, checks, path.slice(kind.length + 2), query, signal);
      }
    }
    if (info.verb !== "get") throw notFound();
    if (path === "/openapi/v3") return respondOpenApi(context, openApi.root(), "mutable");
    if (path.startsWith("/openapi/v3/")) {
      const groupVersion = path.slice("/openapi/v3/".length);
      const document = openApi.document(groupVersion);
      if (document !== undefined) {
        // Only the JSON form of a v3 document is served (kube also serves gnostic's protobuf form, which no kubectl asks for).
        if (openApiForm(context.request.headers["accept"], [["application/json", "json"]]) === undefined) return notAcceptable();
        const hash = query.get("hash");
        // kube: a stale hash (the group version changed since the client read the index) is sent
        // on to the current one; the current one may be cached forever.
        if (hash !== null && hash !== "" && hash !== document.etag) return redirectToHash(`/openapi/v3/${groupVersion}?hash=${document.etag}`, document.etag);
        return respondOpenApi(context, document, hash === document.etag ? "immutable" : "mutable");
      }
    }
    if (path === "/openapi/v2") {
      // kubectl asks for gnostic's protobuf form; kube answers it labelled with the form's dotted
      // name (its `@` spelling is no valid media type), JSON to everyone else, 406 without a body
      // when the Accept names neither.
      const form = openApiForm(context.request.headers["accept"], OPENAPI_V2_FORMS);
      if (form === undefined) return notAcceptable();
      if (form === "protobuf") return respondOpenApi(context, openApi.v2("protobuf"), "mutable", OPENAPI_V2_PROTOBUF_RESPONSE);
      return respondOpenApi(context, openApi.v2("json"), "mutable");
    }
    if (path === "/metrics" && options.metrics !== undefined) {
      return { status: 200, headers: { "content-type": options.metrics.contentType }, body: await options.metrics.metrics() };
    }
    if (path === "/snapshot") {
      if (options.snapshot === undefined)
        throw new ApiError(404, "NotFound", "snapshots are served for --storage-backend sqlite only; for etcd use etcdctl snapshot save", { details: {} });
      return { status: 200, headers: { "content-type": "application/octet-stream" }, body: await options.snapshot() };
    }
    const debugPage = options.debug?.get(path);
    if (debugPage !== undefined) return { status: 200, headers: { "content-type": "text/plain; charset=utf-8" }, body: debugPage(query) };
    if (path === "/version") return respondJson(context, 200, versionInfo(options.profile));
    if (options.issuerDiscovery !== undefined && (path === OPENID_CONFIGURATION_PATH || path === JWKS_PATH)) {
      const document = path === JWKS_PATH ? options.issuerDiscovery.jwks() : options.issuerDiscovery.configuration(options.serverAddress());
      const contentType = path === JWKS_PATH ? "application/jwk-set+json" : "application/json";
      return { status: 200, headers: { "content-type": contentType, "cache-control": "public, max-age=3600" }, body: JSON.stringify(document) };
    }
    if (path === "/api" || path === "/apis") {
      const representation = negotiate(
        context.request.headers["accept"],
        { metaGroup: metaGroup(options.profile), tables: false, discoveryGroup, clientApiDomains: options.profile.clientApiDomains },
        query,
      );
      if (representation.kind === "discovery") {
        const document = discovery.document(path === "/api" ? "core" : "groups", `${representation.group}/${representation.version}`);
        return respondDiscovery(context, document, `application/json;g=${representation.group};v=${representation.version};as=APIGroupDiscoveryList`);
      }
      if (path === "/api") return respondJson(context, 200, apiVersions(options.serverAddress()), representation);
      return respondJson(context, 200, apiGroupList(options.registry, aggregation), representation);
    }
    const parts = path.split("/").filter((part) => part !== "");
    if (parts[0] === "api" && parts.length === 2) {
      const list = apiResourceList(options.registry, "", parts[1] ?? "");
      if (list !== undefined) return respondJson(context, 200, list);
    }
    if (parts[0] === "apis" && parts.length === 2) {
      const group = apiGroup(options.registry, parts[1] ?? "", aggregation);
      if (group !== undefined) return respondJson(context, 200, group);
    }
    if (parts[0] === "apis" && parts.length === 3) {
      const list = apiResourceList(options.registry, parts[1] ?? "", parts[2] ?? "");
      if (list !== undefined) return respondJson(context, 200, list);
    }
    // A group spelled the other profile's way: say which spelling this server serves, and the flag for the other.
    const foreign = parts[0] === "apis" && parts[1] !== undefined ? foreignGroup(options.profile, parts[1]) : undefined;
    if (foreign !== undefined && parts[1] !== undefined && apiGroup(options.registry, foreign.ours) !== undefined)
      throw new ApiError(404, "NotFound", foreignGroupMessage(options.profile, parts[1], foreign.ours, foreign.owner), { details: {} });
    throw notFound();
  };
}
