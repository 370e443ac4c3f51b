import { Counter, type Registry } from "prom-client";
import type { AdmissionOperation } from "../interface.js";

/** Why a hook rejected a request, as kube's rejection metric labels it. */
export type RejectionErrorType = "calling_webhook_error" | "no_error" | "apiserver_internal_error";

/** Counts hook rejections; `observe` is a no-op without a registry. */
export interface WebhookMetrics {
  rejected(hook: string, operation: AdmissionOperation, type: "admit" | "validating", errorType: RejectionErrorType, code: number): void;
}

/**
 * `apiserver_admission_webhook_rejection_count` on the server's (injected) registry, with kube's
 * labels; rejection codes of 600 and above are counted as 600 so a hook cannot grow the series
 * without bound.
 */
export function webhookMetrics(registry: Registry | undefined): WebhookMetrics {
  if (registry === undefined) return { rejected: () => {} };
  const counter = new Counter({
    name: "apiserver_admission_webhook_rejection_count",
    help: "Requests rejected by admission webhooks, by webhook name, admission type (admit or validating), operation, error type and the HTTP code of the rejection (600 and above counted as 600).",
    labelNames: ["name", "type", "operation", "error_type", "rejection_code"] as const,
    registers: [registry],
  });
  return {
    rejected(hook, operation, type, errorType, code) {
      counter.inc({ name: hook, type, operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) });
    },
  };
}
