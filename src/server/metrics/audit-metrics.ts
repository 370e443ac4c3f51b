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
  const events = new Counter({
    name: "apiserver_audit_event_total",
    help: "[ALPHA] Counter of audit events generated and sent to the audit backend.",
    registers: [registry],
  });
  const errors = new Counter({
    name: "apiserver_audit_error_total",
    help: "[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
    labelNames: ["plugin"] as const,
    registers: [registry],
  });
  const levels = new Counter({
    name: "apiserver_audit_level_total",
    help: "[ALPHA] Counter of policy levels for audit events (1 per request).",
    labelNames: ["level"] as const,
    registers: [registry],
  });
  const levelChildren = new Map<string, ReturnType<typeof levels.labels>>();
  return {
    eventsProduced: (count) => events.inc(count),
    eventsFailed: (plugin, count) => errors.inc({ plugin }, count),
    requestLevel(level) {
      let child = levelChildren.get(level);
      if (child === undefined) {
        child = levels.labels({ level });
        levelChildren.set(level, child);
      }
      child.inc();
    },
  };
}
