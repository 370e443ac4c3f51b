import { Counter, type Registry } from "prom-client";

/**
 * kube's audit metrics, registered on the server's (injected) registry: events produced,
 * events a backend failed to write or dropped (per plugin), and the policy level of each
 * audited request.
 */
export interface AuditMetrics {
  eventsProduced(count: number): void;
  /** `plugin` is kube's backend name: `log`, `webhook`, `buffered`. */
  eventsFailed(plugin: string, count: number): void;
  requestLevel(level: string): void;
}

export function createAuditMetrics(registry: Registry): AuditMetrics {
  // Per-request figures are plain numbers, added to the prom-client counters when /metrics is read
  // (a prom-client call hashes its labels: two of them on every audited request cost more than the rest of the bookkeeping).
  let produced = 0;
  let producedReported = 0;
  const levelCounts = new Map<string, { count: number; reported: number }>();
  new Counter({
    name: "apiserver_audit_event_total",
    help: "[ALPHA] Counter of audit events generated and sent to the audit backend.",
    registers: [registry],
    collect() {
      if (produced !== producedReported) this.inc(produced - producedReported);
      producedReported = produced;
    },
  });
  const errors = new Counter({
    name: "apiserver_audit_error_total",
    help: "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
    labelNames: ["plugin"] as const,
    registers: [registry],
  });
  new Counter({
    name: "apiserver_audit_level_total",
    help: "[ALPHA] Counter of policy levels for audit events (1 per request).",
    labelNames: ["level"] as const,
    registers: [registry],
    collect() {
      for (const [level, entry] of levelCounts) {
        if (entry.count !== entry.reported) this.inc({ level }, entry.count - entry.reported);
        entry.reported = entry.count;
      }
    },
  });
  return {
    eventsProduced(count) {
      produced += count;
    },
    eventsFailed: (plugin, count) => errors.inc({ plugin }, count),
    requestLevel(level) {
      let entry = levelCounts.get(level);
      if (entry === undefined) {
        entry = { count: 0, reported: 0 };
        levelCounts.set(level, entry);
      }
      entry.count++;
    },
  };
}
