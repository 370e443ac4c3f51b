import type { ApiClient, ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";

/** The UTC day of `ms` as kube writes it (`2006-01-02`). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export interface LegacyTokenTrackerOptions {
  readonly client: ApiClient;
  readonly secrets: ResourceRef;
  /** `<keyDomain>/legacy-token-last-used`. */
  readonly label: string;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

/**
 * kube's legacy service-account token tracking: when a Secret-based token is presented, its
 * Secret is labelled `<keyDomain>/legacy-token-last-used: <UTC day>` unless the label (as the
 * authenticator last saw it in the watch cache) already names today or tomorrow. The write is
 * made off the request path (the request does not wait for it), at most one per Secret at a
 * time, re-reading the Secret first; a conflict (someone wrote it meanwhile) is left for the
 * next use to settle.
 */
export function legacyTokenTracker(options: LegacyTokenTrackerOptions): (namespace: string, name: string, lastUsed: string | undefined) => void {
  const now = options.now ?? Date.now;
  const inFlight = new Set<string>();
  return (namespace, name, lastUsed) => {
    const nowMs = now();
    const today = utcDay(nowMs);
    const tomorrow = utcDay(nowMs + 86_400_000);
    if (lastUsed === today || lastUsed === tomorrow) return;
    const key = `${namespace}/${name}`;
    if (inFlight.has(key)) return;
    inFlight.add(key);
    void (async () => {
      try {
        const secret = await options.client.get(options.secrets, namespace, name);
        if (secret === undefined) return;
        const labels = secret.metadata.labels ?? {};
        const current = labels[options.label];
        if (current === today || current === tomorrow) return;
        await options.client.update(options.secrets, namespace, name, {
          ...secret,
          metadata: { ...secret.metadata, labels: { ...labels, [options.label]: today } },
        });
      } catch (error) {
        if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) options.onError?.(error);
      } finally {
        inFlight.delete(key);
      }
    })();
  };
}
