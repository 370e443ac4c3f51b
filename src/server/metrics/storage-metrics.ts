import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { StorageObserver, StorageOperation } from "../../storage/index.js";
import type { MetricVisibility } from "./stability.js";

/**
 * kube's storage metrics on the server's (injected) registry: `etcd_request_duration_seconds`,
 * `etcd_requests_total` and `etcd_request_errors_total` by operation and type (the resource, as
 * `<plural>` or `<plural>.<group>`, read from the key by the store's key layout), whatever the backend; and `apiserver_storage_objects`, the
 * number of stored objects per resource, refreshed by a poll (`--etcd-count-metric-poll-period`).
 */
export interface StorageMetrics {
  readonly observe: StorageObserver;
  /** The label of the resource a key or prefix belongs to. */
  label(key: string): string;
  /** Sets `apiserver_storage_objects{resource}`. */
  objects(resource: string, count: number): void;
  /** The last count of a resource's objects (APF's list work estimates); undefined before its first poll. */
  count(resource: string): number | undefined;
}

/** A stored resource as kube's `type`/`resource` label names it: `<plural>`, or `<plural>.<group>`. */
export function resourceLabel(resource: { readonly group: string; readonly resource: string } | undefined): string {
  if (resource === undefined) return "";
  return resource.group === "" ? resource.resource : `${resource.resource}.${resource.group}`;
}

/** Which resource a storage key or prefix belongs to (the store's key layout). */
export type ResourceOfKey = (key: string) => { readonly group: string; readonly resource: string } | undefined;

export function createStorageMetrics(registry: Registry, visibility: MetricVisibility, resourceOf: ResourceOfKey): StorageMetrics {
  const registers = [registry];
  const alpha = { stabilityLevel: "ALPHA" } as const;
  const durations = new Histogram({
    name: "etcd_request_duration_seconds",
    help: visibility.help("Etcd request latency in seconds for each operation and object type.", alpha),
    labelNames: ["operation", "type"] as const,
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
    registers,
  });
  const requests = new Counter({
    name: "etcd_requests_total",
    help: visibility.help("Etcd request counts for each operation and object type.", alpha),
    labelNames: ["operation", "type"] as const,
    registers,
  });
  const errors = new Counter({
    name: "etcd_request_errors_total",
    help: visibility.help("Etcd failed request counts for each operation and object type.", alpha),
    labelNames: ["operation", "type"] as const,
    registers,
  });
  const objects = new Gauge({
    name: "apiserver_storage_objects",
    help: visibility.help("Number of stored objects at the time of last check split by kind.", { stabilityLevel: "STABLE" }),
    labelNames: ["resource"] as const,
    registers,
  });
  interface Series {
    readonly duration: ReturnType<typeof durations.labels>;
    readonly count: ReturnType<typeof requests.labels>;
    readonly errors: ReturnType<typeof errors.labels>;
  }
  // Children by operation and resource: prom-client hashes the label object on every call.
  const series = new Map<string, Series>();
  const counts = new Map<string, number>();
  const seriesOf = (operation: StorageOperation, type: string): Series => {
    const id = `${operation} ${type}`;
    let found = series.get(id);
    if (found === undefined) {
      const labels = { operation, type };
      found = { duration: durations.labels(labels), count: requests.labels(labels), errors: errors.labels(labels) };
      series.set(id, found);
    }
    return found;
  };
  return {
    observe(operation, key, seconds, failed) {
      const entry = seriesOf(operation, resourceLabel(resourceOf(key)));
      entry.duration.observe(seconds);
      entry.count.inc();
      if (failed) entry.errors.inc();
    },
    objects(resource, count) {
      counts.set(resource, count);
      objects.set({ resource }, count);
    },
    count: (resource) => counts.get(resource),
    label: (key) => resourceLabel(resourceOf(key)),
  };
}

/**
 * Counts the objects under each prefix every `periodMs` (kube's `--etcd-count-metric-poll-period`;
 * 0 disables) into `apiserver_storage_objects`; once at start, then periodically. Returns the stop.
 */
export function pollStorageObjects(options: {
  readonly prefixes: () => readonly string[];
  readonly count: (prefix: string) => Promise<number>;
  readonly metrics: StorageMetrics;
  readonly periodMs: number;
  readonly onError: (error: unknown) => void;
}): () => void {
  if (options.periodMs <= 0) return () => {};
  let stopped = false;
  const poll = async (): Promise<void> => {
    for (const prefix of new Set(options.prefixes())) {
      if (stopped) return;
      try {
        options.metrics.objects(options.metrics.label(prefix), await options.count(prefix));
      } catch (error) {
        if (!stopped) options.onError(error);
      }
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), options.periodMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * `apiserver_storage_size_bytes{storage_cluster_id}` (kube 1.30: ALPHA, read at each scrape): the
 * store's database file size, `etcd-0` from the etcd member's Status `dbSize`, `sqlite-0` from the
 * SQLite file's page_count × page_size. A failed read leaves the sample out of that scrape.
 */
export function registerStorageSize(
  registry: Registry,
  visibility: MetricVisibility,
  size: { readonly clusterId: string; readonly bytes: () => Promise<number> },
  onError: (error: unknown) => void,
): void {
  new Gauge({
    name: "apiserver_storage_size_bytes",
    help: visibility.help("Size of the storage database file physically allocated in bytes.", { stabilityLevel: "ALPHA" }),
    labelNames: ["storage_cluster_id"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        this.set({ storage_cluster_id: size.clusterId }, await size.bytes());
      } catch (error) {
        onError(error);
      }
    },
  });
}
