import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestInfo, ResourceRequestInfo } from "../../request/request-info.js";
import { SeriesHistogram, type SeriesRecorder } from "./series-histogram.js";
import { MetricVisibility } from "./stability.js";

/**
 * The server's Prometheus metrics, one registry per API server (injected, never global, so
 * servers in one process do not share counts). Names and labels follow kube-apiserver's, which
 * dashboards and alerts already query.
 */
export interface ApiMetrics {
  readonly registry: Registry;
  /** Which metrics are registered (deprecation, `--show-hidden-metrics-for-version`), for the other stages' metrics. */
  readonly visibility: MetricVisibility;
  /** One finished request; long-running requests (watch) are counted but not timed. */
  observeRequest(request: ObservedRequest): void;
  /**
   * A request starts executing (`apiserver_current_inflight_requests`, by readOnly/mutating);
   * the returned function ends it. Long-running requests end when their response starts.
   */
  requestStarted(mutating: boolean): () => void;
  /** A long-running response (watch) starts streaming (`apiserver_longrunning_requests`); the returned function ends it. */
  longRunningStarted(request: Pick<ObservedRequest, "info" | "method" | "contentType">): () => void;
  /** A request reached a deprecated group version (`apiserver_requested_deprecated_apis` = 1). */
  requestedDeprecatedApi(api: DeprecatedApi): void;
  /** The size in bytes of a GET's or LIST's response body (`apiserver_response_sizes`); other verbs are not observed. */
  observeResponseSize(request: Pick<ObservedRequest, "info" | "method" | "contentType">, bytes: number): void;
  /** A request whose client went away before its response was complete (`apiserver_request_aborts_total`). */
  requestAborted(request: Pick<ObservedRequest, "info" | "method" | "contentType">): void;
  /** A request the server itself ended with `code` (the handler timeout's 504: `apiserver_request_terminations_total`). */
  requestTerminated(request: Pick<ObservedRequest, "info" | "method" | "contentType">, code: number): void;
}

export interface ObservedRequest {
  readonly info: RequestInfo | undefined;
  readonly method: string;
  readonly contentType: string | undefined;
  /** The request's `dryRun` query values (kube's `dry_run` label); absent = none. */
  readonly dryRun?: readonly string[];
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

/**
 * kube's `dry_run` label: "" without `dryRun`, "invalid" when a value is not `All`, else the
 * distinct values sorted and joined by commas.
 */
export function dryRunLabel(values: readonly string[] | undefined): string {
  if (values === undefined || values.length === 0) return "";
  if (values.some((value) => value !== "All")) return "invalid";
  return "All";
}

export interface MetricsOptions {
  /** Also export the process's CPU, memory, file-descriptor and event-loop metrics (default true), from the first scrape on. */
  readonly processMetrics?: boolean;
  /** The release the server emulates (`/version`'s gitVersion), for hiding deprecated metrics; default 1.30. */
  readonly serverVersion?: string;
  /** `--show-hidden-metrics-for-version`: the previous minor version, or undefined. */
  readonly showHiddenMetricsForVersion?: string;
}

/**
 * The health endpoint a non-resource request asks, or "": kube instruments `/healthz`, `/livez`
 * and `/readyz` with the path as the `subresource` label and an empty `component` (its
 * single checks, `/livez/ping`, are not instrumented apart).
 */
function healthPath(info: RequestInfo | undefined): string {
  if (info?.kind !== "non-resource") return "";
  const path = info.path;
  return path === "/livez" || path === "/readyz" || path === "/healthz" ? path : "";
}

/** The labels kube gives a request's series: verb, group, version, resource, subresource, scope, component. */
function requestLabels(info: RequestInfo | undefined, method: string, contentType: string | undefined) {
  const resource = info?.kind === "resource" ? info : undefined;
  const scope = resource === undefined ? "" : resource.name !== "" ? "resource" : resource.namespace !== "" ? "namespace" : "cluster";
  const health = healthPath(info);
  return {
    verb: verbLabel(info, method, contentType),
    group: resource?.group ?? "",
    version: resource?.version ?? "",
    resource: resource?.resource ?? "",
    subresource: resource?.subresource ?? health,
    scope,
    component: health === "" ? "apiserver" : "",
  };
}

/**
 * A registry that adds prom-client's process metrics (CPU, memory, file descriptors, GC, event
 * loop) at its first scrape rather than at creation: the event-loop delay monitor behind them
 * wakes the process every 10 ms, which a server nobody scrapes should not pay for (idle means
 * idle). CPU, memory and descriptors are read from the process at each scrape, so they lose
 * nothing; the GC and event-loop histograms count from the first scrape on.
 */
class ProcessMetricsOnScrape extends Registry {
  private started = false;

  override metrics(): Promise<string> {
    if (!this.started) {
      this.started = true;
      collectDefaultMetrics({ register: this });
    }
    return super.metrics();
  }
}

export function createMetrics(options: MetricsOptions = {}): ApiMetrics {
  const registry = options.processMetrics === false ? new Registry() : new ProcessMetricsOnScrape();
  const visibility = new MetricVisibility(options.serverVersion ?? "v1.30.0", options.showHiddenMetricsForVersion);
  const stable = { stabilityLevel: "STABLE" } as const;
  const registers = [registry];
  const labels = ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"] as const;
  // The per-request figures (count, duration, response size, in-flight) are plain numbers kept per
  // series and handed to prom-client at scrape time: prom-client checks and hashes a label set on
  // every call of a child (inc, observe, set), and at one request at a time, where nothing of it
  // stays in the CPU's caches between requests, that was ~15 µs of the answer's ~250 µs.
  const counted: RequestCount[] = [];
  new Counter({
    name: "apiserver_request_total",
    help: visibility.help(
      "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      stable,
    ),
    labelNames: labels,
    registers,
    collect() {
      for (const entry of counted) {
        if (entry.count === entry.reported) continue;
        this.inc(entry.labels, entry.count - entry.reported);
        entry.reported = entry.count;
      }
    },
  });
  const durations = new SeriesHistogram({
    name: "apiserver_request_duration_seconds",
    help: visibility.help(
      "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      stable,
    ),
    labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"] as const,
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers,
  });
  const deprecated = new Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: visibility.help(
      "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
      stable,
    ),
    labelNames: ["group", "version", "resource", "subresource", "removed_release"] as const,
    registers,
  });
  const executing = { readOnly: 0, mutating: 0 };
  new Gauge({
    name: "apiserver_current_inflight_requests",
    help: visibility.help(
      "Number of requests this apiserver is executing, per request kind (readOnly or mutating); a long-running request counts until its response starts.",
      stable,
    ),
    labelNames: ["request_kind"] as const,
    registers,
    collect() {
      this.set({ request_kind: "readOnly" }, executing.readOnly);
      this.set({ request_kind: "mutating" }, executing.mutating);
    },
  });
  const longRunning = new Gauge({
    name: "apiserver_longrunning_requests",
    help: visibility.help(
      "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
      stable,
    ),
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const,
    registers,
  });
  const responseSizes = new SeriesHistogram({
    name: "apiserver_response_sizes",
    help: visibility.help("Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.", stable),
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const,
    // kube's exponential buckets: 1 kB × 10^n, eight of them.
    buckets: [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10],
    registers,
  });
  const aborts = new Counter({
    name: "apiserver_request_aborts_total",
    help: visibility.help(
      "Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope",
      { stabilityLevel: "ALPHA" },
    ),
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope"] as const,
    registers,
  });
  const terminations = new Counter({
    name: "apiserver_request_terminations_total",
    help: visibility.help("Number of requests which apiserver terminated in self-defense.", { stabilityLevel: "ALPHA" }),
    labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component", "code"] as const,
    registers,
  });
  const sizeSeries = new Map<string, SeriesRecorder>();
  // Each label combination is looked up once and kept; the last one used is tried first, without
  // building its key (a client's requests in a row are mostly of one kind: pages of a list, a
  // controller's GETs).
  interface RequestCount {
    readonly labels: Record<(typeof labels)[number], string>;
    count: number;
    /** What collect already added to the prom-client counter. */
    reported: number;
  }
  interface RequestSeries {
    readonly verb: string;
    readonly dry: string;
    readonly scope: string;
    /** The health endpoint of a non-resource request (see healthPath), else "". */
    readonly health: string;
    /** The resource's group, version, resource and subresource; undefined for a non-resource request. */
    readonly resource: readonly [string, string, string, string] | undefined;
    readonly labels: Record<(typeof labels)[number], string>;
    readonly count: Map<number, RequestCount>;
    readonly duration: SeriesRecorder;
  }
  const series = new Map<string, RequestSeries>();
  let last: RequestSeries | undefined;
  const sameSeries = (entry: RequestSeries, verb: string, dry: string, resource: ResourceRequestInfo | undefined, scope: string, health: string): boolean => {
    if (entry.verb !== verb || entry.dry !== dry || entry.scope !== scope || entry.health !== health) return false;
    const kept = entry.resource;
    if (kept === undefined || resource === undefined) return kept === resource;
    return kept[0] === resource.group && kept[1] === resource.version && kept[2] === resource.resource && kept[3] === resource.subresource;
  };
  return {
    registry,
    visibility,
    observeRequest({ info, method, contentType, dryRun, code, seconds, longRunning }) {
      const resource = info?.kind === "resource" ? info : undefined;
      const scope = resource === undefined ? "" : resource.name !== "" ? "resource" : resource.namespace !== "" ? "namespace" : "cluster";
      const verb = verbLabel(info, method, contentType);
      const dry = dryRunLabel(dryRun);
      const health = resource === undefined ? healthPath(info) : "";
      let entry = last !== undefined && sameSeries(last, verb, dry, resource, scope, health) ? last : undefined;
      if (entry === undefined) {
        const key =
          resource === undefined
            ? `${verb} ${dry} ${health}`
            : `${verb} ${dry} ${resource.group} ${resource.version} ${resource.resource} ${resource.subresource} ${scope}`;
        entry = series.get(key);
        if (entry === undefined) {
          const common = { ...requestLabels(info, method, contentType), dry_run: dry };
          const kept = resource === undefined ? undefined : ([resource.group, resource.version, resource.resource, resource.subresource] as const);
          entry = { verb, dry, scope, health, resource: kept, labels: { ...common, code: "" }, count: new Map(), duration: durations.series(common) };
          series.set(key, entry);
        }
        last = entry;
      }
      let counter = entry.count.get(code);
      if (counter === undefined) {
        counter = { labels: { ...entry.labels, code: String(code) }, count: 0, reported: 0 };
        counted.push(counter);
        entry.count.set(code, counter);
      }
      counter.count++;
      if (!longRunning) entry.duration.observe(seconds);
    },
    requestStarted(mutating) {
      if (mutating) executing.mutating++;
      else executing.readOnly++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (mutating) executing.mutating--;
        else executing.readOnly--;
      };
    },
    longRunningStarted({ info, method, contentType }) {
      const gauge = longRunning.labels(requestLabels(info, method, contentType));
      gauge.inc();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        gauge.dec();
      };
    },
    observeResponseSize({ info, method, contentType }, bytes) {
      const verb = verbLabel(info, method, contentType);
      if (verb !== "GET" && verb !== "LIST") return;
      const resource = info?.kind === "resource" ? info : undefined;
      const key =
        resource === undefined
          ? `${verb} ${healthPath(info)}`
          : `${verb} ${resource.group} ${resource.version} ${resource.resource} ${resource.subresource} ${resource.name !== "" ? "resource" : resource.namespace !== "" ? "namespace" : "cluster"}`;
      let child = sizeSeries.get(key);
      if (child === undefined) {
        child = responseSizes.series(requestLabels(info, method, contentType));
        sizeSeries.set(key, child);
      }
      child.observe(bytes);
    },
    requestAborted({ info, method, contentType }) {
      const { component: _component, ...labels } = requestLabels(info, method, contentType);
      aborts.inc(labels);
    },
    requestTerminated({ info, method, contentType }, code) {
      terminations.inc({ ...requestLabels(info, method, contentType), code: String(code) });
    },
    requestedDeprecatedApi(api) {
      deprecated.set({ group: api.group, version: api.version, resource: api.resource, subresource: api.subresource, removed_release: api.removedRelease }, 1);
    },
  };
}
