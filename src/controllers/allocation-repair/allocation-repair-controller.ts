import type { Controller } from "../controller.js";
import { pause as wait } from "../../util/pause.js";

/** kube runs its service IP and node port repair loops every three minutes. */
export const ALLOCATION_REPAIR_INTERVAL_MS = 3 * 60_000;

export interface AllocationRepairOptions {
  /**
   * One repair pass (the registry's `repairAllocations`); released and claimed values are reported
   * by it. Resolves true when the pass left nothing to look at again (no value found unheld once).
   */
  readonly repair: () => Promise<boolean>;
  /**
   * The store's revision, when it counts every write (a store no other server shares): a pass is
   * then skipped while nothing was written since a pass that settled. Without it every pass runs.
   */
  readonly revision?: () => number;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * Releases values claimed from shared ranges that no object holds (a server that died between
 * a Service's claim and its write leaves one) and claims values objects hold without a claim.
 * A value is released only after two passes found it unheld, so a create in flight is safe.
 * Every claim and every object is a write, so when the store's revision has not moved since a
 * pass that settled, a pass would find the same: it is skipped, and an idle server lists nothing.
 */
export function allocationRepairController(options: AllocationRepairOptions): Controller {
  const intervalMs = options.intervalMs ?? ALLOCATION_REPAIR_INTERVAL_MS;
  return {
    name: "allocation-repair",
    async run(signal) {
      let settledAt: number | undefined;
      while (!signal.aborted) {
        await wait(intervalMs, signal);
        if (signal.aborted) return;
        const revision = options.revision?.();
        if (revision !== undefined && revision === settledAt) continue;
        settledAt = undefined;
        try {
          if (await options.repair()) settledAt = revision;
        } catch (error) {
          options.onError?.(error);
        }
      }
    },
  };
}
