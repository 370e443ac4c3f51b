import type { ApiClient, ResourceRef } from "../api/client.js";
import { runReconcileLoop, Wake } from "./reconcile-loop.js";

/**
 * Runs `reconcile` at start and after every burst of changes to `resources`, until the signal
 * aborts; returns the Wake so a controller can also poke it (e.g. from a deadline timer). A failed
 * reconcile or watch is reported through `onError` and the loop goes on.
 */
export async function followAndReconcile(
  client: ApiClient,
  resources: readonly ResourceRef[],
  signal: AbortSignal,
  options: { readonly reconcile: () => Promise<void>; readonly onError?: (error: unknown) => void; readonly wake?: Wake },
): Promise<void> {
  const wake = options.wake ?? new Wake();
  const follow = async (resource: ResourceRef): Promise<void> => {
    try {
      for await (const _change of client.changed(resource, signal)) wake.poke();
    } catch (error) {
      if (!signal.aborted) options.onError?.(error);
    }
  };
  for (const resource of resources) void follow(resource);
  await runReconcileLoop(signal, wake, options.reconcile, options.onError);
}

/**
 * A one-shot timer that pokes `wake` at `atMs` (by `nowMs`), replacing any earlier one; it never
 * holds the process open and is cleared when the signal aborts.
 */
export function deadlineTimer(wake: Wake, signal: AbortSignal, nowMs: () => number): (atMs: number | undefined) => void {
  let timer: NodeJS.Timeout | undefined;
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return (atMs) => {
    clearTimeout(timer);
    timer = undefined;
    if (atMs === undefined || signal.aborted) return;
    // setTimeout's limit is 2^31-1 ms; a later deadline re-arms when this one fires.
    timer = setTimeout(() => wake.poke(), Math.min(Math.max(0, atMs - nowMs()), 2 ** 31 - 1));
    timer.unref();
  };
}
