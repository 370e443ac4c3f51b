import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestInfo } from "../../request/request-info.js";

/**
 * The server's Prometheus metrics, one registry per API server (injected, never global, so
 * servers in one process do not share counts). Names and labels follow kube-apiserver's, which
 * dashboards and alerts already query.
 */
export interface ApiMetrics {
  readonly registry: Registry;
  /** One finished request; long-running requests (watch) are counted but not timed. */
  observeRequest(request: ObservedRequest): void;
  /** A request reached a deprecated group version (`apiserver_requested_deprecated_apis` = 1). */
  requestedDeprecatedApi(api: DeprecatedApi): void;
}

export interface ObservedRequest {
  readonly info: RequestInfo | undefined;
  readonly method: string;
  readonly contentType: string | undefined;
  readonly code: number;
  readonly seconds: number;
  readonly longRunning: boolean;
}

export interface DeprecatedApi {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** `<major>.<minor>` the version is removed in, or "" when no removal is planned. */
  readonly removedRelease: string;
}

/** kube's request verbs as metric labels: LIST and WATCH apart from GET, APPLY apart from PATCH. */
function verbLabel(info: RequestInfo | undefined, method: string, contentType: string | undefined): string {
  if (info === undefined || info.kind === "non-resource") return method.toUpperCase();
  switch (info.verb) {
    case "get":
      return "GET";
    case "list":
      return "LIST";
    case "watch":
      return "WATCH";
    case "create":
      return "POST";
    case "update":
      return "PUT";
    case "patch":
      return contentType?.startsWith("application/apply-patch") === true ? "APPLY" : "PATCH";
    case "delete":
    case "deletecollection":
      return "DELETE";
  }
}

export interface MetricsOptions {
  /** Also export the process's CPU, memory, file-descriptor and event-loop metrics (default true). */
  readonly processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): ApiMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const labels = ["verb", "group", "version", "resource", "subresource", "scope", "component", "code"] as const;
  const requests = new Counter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code.",
    labelNames: labels,
    registers: [registry],
  });
  const durations = new Histogram({
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.",
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const,
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers: [registry],
  });
  const deprecated = new Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
    labelNames: ["group", "version", "resource", "subresource", "removed_release"] as const,
    registers: [registry],
  });
  // Label children by label values: prom-client hashes a label object on every call, a
  // measurable share of a GET, so each combination is looked up once and kept.
  interface RequestSeries {
    readonly labels: Record<(typeof labels)[number], string>;
    readonly count: Map<number, ReturnType<typeof requests.labels>>;
    readonly duration: ReturnType<typeof durations.labels>;
  }
  const series = new Map<string, RequestSeries>();
  return {
    registry,
    observeRequest({ info, method, contentType, code, seconds, longRunning }) {
      const resource = info?.kind === "resource" ? info : undefined;
      const scope = resource === undefined ? "" : resource.name !== "" ? "resource" : resource.namespace !== "" ? "namespace" : "cluster";
      const verb = verbLabel(info, method, contentType);
      const key = resource === undefined ? verb : `${verb} ${resource.group} ${resource.version} ${resource.resource} ${resource.subresource} ${scope}`;
      let entry = series.get(key);
      if (entry === undefined) {
        const common = {
          verb,
          group: resource?.group ?? "",
          version: resource?.version ?? "",
          resource: resource?.resource ?? "",
          subresource: resource?.subresource ?? "",
          scope,
          component: "apiserver",
        };
        entry = { labels: { ...common, code: "" }, count: new Map(), duration: durations.labels(common) };
        series.set(key, entry);
      }
      let counter = entry.count.get(code);
      if (counter === undefined) {
        counter = requests.labels({ ...entry.labels, code: String(code) });
        entry.count.set(code, counter);
      }
      counter.inc();
      if (!longRunning) entry.duration.observe(seconds);
    },
    requestedDeprecatedApi(api) {
      deprecated.set({ group: api.group, version: api.version, resource: api.resource, subresource: api.subresource, removed_release: api.removedRelease }, 1);
    },
  };
}
