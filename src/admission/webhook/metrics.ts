import { Counter, Histogram, type Registry } from "prom-client";
import type { AdmissionOperation } from "../interface.js";

/** Why a hook rejected a request, as kube's rejection metric labels it. */
export type RejectionErrorType = "calling_webhook_error" | "no_error" | "apiserver_internal_error";

/** The admission type label: mutating hooks are `admit`, validating ones `validating`. */
export type WebhookType = "admit" | "validating";

/** What the webhook plugins count; every method is a no-op without a registry. */
export interface WebhookMetrics {
  /** A request a hook rejected (a denial, or a failure under failurePolicy Fail). */
  rejected(hook: string, operation: AdmissionOperation, type: WebhookType, errorType: RejectionErrorType, code: number): void;
  /** One call to a hook: the HTTP code it answered (0 when none), whether the request was rejected, and how long the call took. */
  called(
    hook: string,
    operation: AdmissionOperation,
    type: WebhookType,
    call: { readonly code: number; readonly rejected: boolean; readonly seconds: number },
  ): void;
  /** A failed call let through by failurePolicy Ignore. */
  failedOpen(hook: string, type: WebhookType): void;
}

/**
 * kube's webhook metrics on the server's (injected) registry, with kube's names and labels:
 * `apiserver_admission_webhook_rejection_count` (codes of 600 and above counted as 600, so a hook
 * cannot grow the series without bound), `apiserver_admission_webhook_request_total`,
 * `apiserver_admission_webhook_admission_duration_seconds` and
 * `apiserver_admission_webhook_fail_open_count`.
 */
export function webhookMetrics(registry: Registry | undefined): WebhookMetrics {
  if (registry === undefined) return { rejected: () => {}, called: () => {}, failedOpen: () => {} };
  const rejections = new Counter({
    name: "apiserver_admission_webhook_rejection_count",
    help: "Requests rejected by admission webhooks, by webhook name, admission type (admit or validating), operation, error type and the HTTP code of the rejection (600 and above counted as 600).",
    labelNames: ["name", "type", "operation", "error_type", "rejection_code"] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: "apiserver_admission_webhook_request_total",
    help: "Calls to admission webhooks, by webhook name, admission type, operation, HTTP code of the answer (0 when none) and whether the request was rejected.",
    labelNames: ["name", "type", "operation", "code", "rejected"] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: "apiserver_admission_webhook_admission_duration_seconds",
    help: "Admission webhook call latency in seconds, by webhook name, admission type, operation and whether the request was rejected.",
    labelNames: ["name", "type", "operation", "rejected"] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25],
    registers: [registry],
  });
  const failOpen = new Counter({
    name: "apiserver_admission_webhook_fail_open_count",
    help: "Admission webhook calls that failed and were let through (failurePolicy Ignore), by webhook name and admission type.",
    labelNames: ["name", "type"] as const,
    registers: [registry],
  });
  return {
    rejected(hook, operation, type, errorType, code) {
      rejections.inc({ name: hook, type, operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) });
    },
    called(hook, operation, type, call) {
      const rejected = String(call.rejected);
      requests.inc({ name: hook, type, operation, code: String(Math.min(call.code, 600)), rejected });
      durations.observe({ name: hook, type, operation, rejected }, call.seconds);
    },
    failedOpen(hook, type) {
      failOpen.inc({ name: hook, type });
    },
  };
}
