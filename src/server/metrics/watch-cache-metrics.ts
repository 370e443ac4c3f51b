import { Counter, Gauge, type Registry } from "prom-client";
import { SeriesHistogram, type SeriesRecorder } from "./series-histogram.js";
import type { WatchCacheMetrics } from "../../registry/index.js";
import type { MetricVisibility } from "./stability.js";

/**
 * kube 1.30's watch-cache metrics, by `resource` (`<plural>` or `<plural>.<group>`, from the
 * cache's storage prefix): `apiserver_watch_cache_events_received_total`,
 * `apiserver_watch_cache_events_dispatched_total`, `apiserver_init_events_total`,
 * `apiserver_terminated_watchers_total` and `watch_cache_capacity` (the event window kept for
 * resuming watches; fixed here by `--default-watch-cache-size`, where kube resizes it). And the
 * watch events every watcher was sent, as kube 1.30 labels them by the watched kind (`group`,
 * `version`, `kind`; `kindOf` names the kind a cache's prefix holds): `apiserver_watch_events_total`
 * and `apiserver_watch_events_sizes` (bytes of each encoded event, kube's buckets 1 KiB × 2^n).
 */
export function createWatchCacheMetrics(
  registry: Registry,
  visibility: MetricVisibility,
  resourceOf: (prefix: string) => string,
  kindOf: (prefix: string) => { readonly group: string; readonly version: string; readonly kind: string } = () => ({ group: "", version: "", kind: "" }),
): WatchCacheMetrics {
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
  const watchEvents = new Counter({
    name: "apiserver_watch_events_total",
    help: visibility.help("Number of events sent in watch clients", alpha),
    labelNames: ["group", "version", "kind"] as const,
    registers,
  });
  const watchEventSizes = new SeriesHistogram({
    name: "apiserver_watch_events_sizes",
    help: visibility.help("Watch event size distribution in bytes", alpha),
    labelNames: ["group", "version", "kind"] as const,
    buckets: [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
    registers,
  });
  const sentSeries = new Map<string, { readonly count: ReturnType<typeof watchEvents.labels>; readonly sizes: SeriesRecorder }>();
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
    sent(prefix, bytes, watchers) {
      let entry = sentSeries.get(prefix);
      if (entry === undefined) {
        const { group, version, kind } = kindOf(prefix);
        const labels = { group, version, kind };
        entry = { count: watchEvents.labels(labels), sizes: watchEventSizes.series(labels) };
        sentSeries.set(prefix, entry);
      }
      entry.count.inc(watchers);
      entry.sizes.observe(bytes, watchers);
    },
  };
}
