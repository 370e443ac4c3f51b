import type { Registry } from "prom-client";
import type { AdmissionObserver } from "../../admission/chain.js";
import { SeriesHistogram, type SeriesRecorder } from "./series-histogram.js";
import type { MetricVisibility } from "./stability.js";

/**
 * kube's admission latency metrics on the server's (injected) registry:
 * `apiserver_admission_step_admission_duration_seconds{type,operation,rejected}` for each step
 * (all mutating plugins, all validating ones) and
 * `apiserver_admission_controller_admission_duration_seconds{name,type,operation,rejected}` per plugin.
 */
export function createAdmissionMetrics(registry: Registry, visibility: MetricVisibility): AdmissionObserver {
  const stable = { stabilityLevel: "STABLE" } as const;
  const buckets = [0.005, 0.025, 0.1, 0.5, 1, 2.5];
  const steps = new SeriesHistogram({
    name: "apiserver_admission_step_admission_duration_seconds",
    help: visibility.help(
      "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
      stable,
    ),
    labelNames: ["type", "operation", "rejected"] as const,
    buckets,
    registers: [registry],
  });
  const plugins = new SeriesHistogram({
    name: "apiserver_admission_controller_admission_duration_seconds",
    help: visibility.help(
      "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
      stable,
    ),
    labelNames: ["name", "type", "operation", "rejected"] as const,
    buckets,
    registers: [registry],
  });
  // Recorders by label values: an admitted write observes every plugin that handles it.
  const stepChildren = new Map<string, SeriesRecorder>();
  const pluginChildren = new Map<string, SeriesRecorder>();
  return {
    step(type, operation, rejected, seconds) {
      const id = `${type} ${operation} ${rejected}`;
      let child = stepChildren.get(id);
      if (child === undefined) {
        child = steps.series({ type, operation, rejected: String(rejected) });
        stepChildren.set(id, child);
      }
      child.observe(seconds);
    },
    plugin(name, type, operation, rejected, seconds) {
      const id = `${name} ${type} ${operation} ${rejected}`;
      let child = pluginChildren.get(id);
      if (child === undefined) {
        child = plugins.series({ name, type, operation, rejected: String(rejected) });
        pluginChildren.set(id, child);
      }
      child.observe(seconds);
    },
  };
}
