import type { Controller } from "../controller.js";
import { pause as wait } from "../../util/pause.js";

/** kube runs its service IP and node port repair loops every three minutes. */
export const ALLOCATION_REPAIR_INTERVAL_MS = 3 * 60_000;

export interface AllocationRepairOptions {
  /** One repair pass (the registry's `repairAllocations`); released and claimed values are reported by it. */
  readonly repair: () => Promise<void>;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * Releases values claimed from shared ranges that no object holds (a server that died between
 * a Service's claim and its write leaves one) and claims values objects hold without a claim.
 * A value is released only after two passes found it unheld, so a create in flight is safe.
 */
export function allocationRepairController(options: AllocationRepairOptions): Controller {
  const intervalMs = options.intervalMs ?? ALLOCATION_REPAIR_INTERVAL_MS;
  return {
    name: "allocation-repair",
    async run(signal) {
      while (!signal.aborted) {
        await wait(intervalMs, signal);
        if (signal.aborted) return;
        try {
          await options.repair();
        } catch (error) {
          options.onError?.(error);
        }
      }
    },
  };
}
