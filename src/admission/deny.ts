import { ApiError, forbidden } from "../api/errors.js";
import type { AdmissionAttributes } from "./interface.js";

/** kube's `admission.NewForbidden`: 403 `<resource>[.<group>] "<name>" is forbidden: <reason>`. */
export function denied(attributes: Pick<AdmissionAttributes, "resource" | "name">, reason: string): ApiError {
  const { group, resource } = attributes.resource;
  const qualified = group === "" ? resource : `${resource}.${group}`;
  const subject = attributes.name === "" ? qualified : `${qualified} "${attributes.name}"`;
  return forbidden(`${subject} is forbidden: ${reason}`, { group, resource, name: attributes.name === "" ? undefined : attributes.name });
}

/** Several reasons as kube's aggregate error prints them: one alone, else `[a, b]`. */
export function aggregate(reasons: readonly string[]): string {
  return reasons.length === 1 ? (reasons[0] ?? "") : `[${reasons.join(", ")}]`;
}

/** A bad admission configuration (flag or file), naming the plugin and the field. Start-up exits 2. */
export class AdmissionConfigError extends Error {
  override readonly name = "AdmissionConfigError";
}

/** Refusals that are not policy: kube answers these with a code of their own (429 for EventRateLimit). */
export function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, "TooManyRequests", message, {
    details: { retryAfterSeconds },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}
