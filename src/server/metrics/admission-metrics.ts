import type { Registry } from "prom-client";
import type { AdmissionObserver, AdmissionStepType } from "../../admission/chain.js";
import type { AdmissionOperation } from "../../admission/interface.js";
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
  // Recorders by label values, in slots per step type, operation and outcome: an admitted write
  // observes every plugin that handles it, so a call is two array reads (no label key built).
  const stepSlots: (SeriesRecorder | undefined)[] = [];
  const pluginSlots = new Map<string, (SeriesRecorder | undefined)[]>();
  return {
    step(type, operation, rejected, seconds) {
      const index = slotOf(type, operation, rejected);
      let child = stepSlots[index];
      if (child === undefined) {
        child = steps.series({ type, operation, rejected: String(rejected) });
        stepSlots[index] = child;
      }
      child.observe(seconds);
    },
    plugin(name, type, operation, rejected, seconds) {
      let slots = pluginSlots.get(name);
      if (slots === undefined) {
        slots = [];
        pluginSlots.set(name, slots);
      }
      const index = slotOf(type, operation, rejected);
      let child = slots[index];
      if (child === undefined) {
        child = plugins.series({ name, type, operation, rejected: String(rejected) });
        slots[index] = child;
      }
      child.observe(seconds);
    },
  };
}

const OPERATIONS: readonly AdmissionOperation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/** One slot per step type, operation and outcome: 0..15. */
function slotOf(type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean): number {
  return (type === "admit" ? 0 : 8) + OPERATIONS.indexOf(operation) * 2 + (rejected ? 1 : 0);
}
