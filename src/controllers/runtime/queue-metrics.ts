import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** What a work queue reports, per queue name (kube's `workqueue_*` metrics). */
export interface QueueMetrics {
  added(): void;
  depth(value: number): void;
  /** Seconds an item waited in the queue before a worker took it. */
  queued(seconds: number): void;
  /** Seconds a worker spent on an item. */
  worked(seconds: number): void;
  retried(): void;
  /** Called at scrape time: seconds of work in progress now (sum, and the longest). */
  inFlight(read: () => { readonly total: number; readonly longest: number }): void;
}

export type QueueMetricsProvider = (name: string) => QueueMetrics;

const BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

const providers = new WeakMap<Registry, QueueMetricsProvider>();

/** kube's workqueue metrics in the given prom-client registry (the server's, injected); one set per registry. */
export function workqueueMetrics(registry: Registry): QueueMetricsProvider {
  const known = providers.get(registry);
  if (known !== undefined) return known;
  const provider = createProvider(registry);
  providers.set(registry, provider);
  return provider;
}

function createProvider(registry: Registry): QueueMetricsProvider {
  const readers = new Map<string, () => { readonly total: number; readonly longest: number }>();
  const registers = [registry];
  const depth = new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames: ["name"], registers });
  const adds = new Counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue", labelNames: ["name"], registers });
  const latency = new Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested.",
    labelNames: ["name"],
    buckets: BUCKETS,
    registers,
  });
  const work = new Histogram({
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes.",
    labelNames: ["name"],
    buckets: BUCKETS,
    registers,
  });
  const retries = new Counter({ name: "workqueue_retries_total", help: "Total number of retries handled by workqueue", labelNames: ["name"], registers });
  new Gauge({
    name: "workqueue_unfinished_work_seconds",
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
    labelNames: ["name"],
    registers,
    collect() {
      for (const [name, read] of readers) this.set({ name }, read().total);
    },
  });
  new Gauge({
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running.",
    labelNames: ["name"],
    registers,
    collect() {
      for (const [name, read] of readers) this.set({ name }, read().longest);
    },
  });
  return (name) => {
    const labels = { name };
    depth.set(labels, 0);
    adds.inc(labels, 0);
    retries.inc(labels, 0);
    return {
      added: () => adds.inc(labels),
      depth: (value) => depth.set(labels, value),
      queued: (seconds) => latency.observe(labels, seconds),
      worked: (seconds) => work.observe(labels, seconds),
      retried: () => retries.inc(labels),
      inFlight: (read) => void readers.set(name, read),
    };
  };
}

/** Metrics that go nowhere (tests, or a server without a metrics registry). */
export const NO_QUEUE_METRICS: QueueMetricsProvider = () => ({
  added: () => {},
  depth: () => {},
  queued: () => {},
  worked: () => {},
  retried: () => {},
  inFlight: () => {},
});
