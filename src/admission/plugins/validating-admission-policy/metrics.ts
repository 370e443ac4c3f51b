import { Counter, Histogram, type Registry } from "prom-client";

/** kube's labels of a policy check: what the binding did with the outcome, and whether it was an error. */
export interface PolicyCheck {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: "no_error" | "compile_error" | "invalid_error";
  /** `allow` when the policy passed; otherwise one of the binding's actions (deny, warn, audit). */
  readonly enforcementAction: "allow" | "deny" | "warn" | "audit";
}

/** Counts policy checks; a no-op without a registry. */
export interface PolicyMetrics {
  checked(check: PolicyCheck, seconds: number): void;
}

/**
 * `apiserver_validating_admission_policy_check_total` and
 * `apiserver_validating_admission_policy_check_duration_seconds` with kube's labels (policy,
 * policy_binding, error_type, enforcement_action) and buckets.
 */
export function policyMetrics(registry: Registry | undefined): PolicyMetrics {
  if (registry === undefined) return { checked: () => {} };
  const labelNames = ["policy", "policy_binding", "error_type", "enforcement_action"] as const;
  const total = new Counter({
    name: "apiserver_validating_admission_policy_check_total",
    help: "Validating admission policy checks, by policy, binding, error type and the enforcement action taken.",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "apiserver_validating_admission_policy_check_duration_seconds",
    help: "Validating admission policy check latency in seconds, by policy, binding, error type and the enforcement action taken.",
    labelNames,
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1],
    registers: [registry],
  });
  return {
    checked(check, seconds) {
      const labels = { policy: check.policy, policy_binding: check.binding, error_type: check.errorType, enforcement_action: check.enforcementAction };
      total.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}
