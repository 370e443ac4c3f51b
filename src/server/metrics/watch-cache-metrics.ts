import { Counter, Gauge, type Registry } from "prom-client";
import type { WatchCacheMetrics } from "../../registry/index.js";
import type { MetricVisibility } from "./stability.js";

/**
 * kube 1.30's watch-cache metrics, by `resource` (`<plural>` or `<plural>.<group>`, from the
 * cache's storage prefix): `apiserver_watch_cache_events_received_total`,
 * `apiserver_watch_cache_events_dispatched_total`, `apiserver_init_events_total`,
 * `apiserver_terminated_watchers_total` and `watch_cache_capacity` (the event window kept for
 * resuming watches; fixed here by `--default-watch-cache-size`, where kube resizes it).
 */
export function createWatchCacheMetrics(registry: Registry, visibility: MetricVisibility, resourceOf: (prefix: string) => string): WatchCacheMetrics {
  const registers = [registry];
  const alpha = { stabilityLevel: "ALPHA" } as const;
  const labelNames = ["resource"] as const;
  const received = new Counter({
    name: "apiserver_watch_cache_events_received_total",
    help: visibility.help("Counter of events received in watch cache broken by resource type.", alpha),
    labelNames,
    registers,
  });
  const dispatched = new Counter({
    name: "apiserver_watch_cache_events_dispatched_total",
    help: visibility.help("Counter of events dispatched in watch cache broken by resource type.", alpha),
    labelNames,
    registers,
  });
  const init = new Counter({
    name: "apiserver_init_events_total",
    help: visibility.help("Counter of init events processed in watch cache broken by resource type.", alpha),
    labelNames,
    registers,
  });
  const terminated = new Counter({
    name: "apiserver_terminated_watchers_total",
    help: visibility.help("Counter of watchers closed due to unresponsiveness broken by resource type.", alpha),
    labelNames,
    registers,
  });
  const capacity = new Gauge({
    name: "watch_cache_capacity",
    help: visibility.help("Total capacity of watch cache broken by resource type.", alpha),
    labelNames,
    registers,
  });
  // Label children per prefix, looked up once: these are called for every stored change.
  const children = new Map<string, { received: ReturnType<typeof received.labels>; dispatched: ReturnType<typeof dispatched.labels> }>();
  const childrenOf = (prefix: string) => {
    let entry = children.get(prefix);
    if (entry === undefined) {
      const labels = { resource: resourceOf(prefix) };
      entry = { received: received.labels(labels), dispatched: dispatched.labels(labels) };
      children.set(prefix, entry);
    }
    return entry;
  };
  return {
    capacity: (prefix, events) => capacity.set({ resource: resourceOf(prefix) }, events),
    received: (prefix) => childrenOf(prefix).received.inc(),
    dispatched: (prefix) => childrenOf(prefix).dispatched.inc(),
    initEvents: (prefix, count) => init.inc({ resource: resourceOf(prefix) }, count),
    terminated: (prefix) => terminated.inc({ resource: resourceOf(prefix) }),
  };
}
