import type { QueueMetricsProvider } from "./queue-metrics.js";
import { WorkQueue } from "./workqueue.js";

/** A controller as the manager runs it: `synced` once it has reconciled what it found at start. */
export interface ManagedController {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
  readonly synced: boolean;
}

/** Where a queue controller's keys come from. */
export interface KeySource {
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
}

export interface QueueControllerSpec {
  /** kube-controller-manager's name for it; also the work queue's metric label. */
  readonly name: string;
  readonly workers?: number;
  /** Subscribes to informers, adding keys as objects change; returns the unsubscribe. */
  watch(queue: KeySource): () => void;
  /** The keys to reconcile at start (the first sync). */
  initialKeys(): Iterable<string>;
  /** Brings one key's state to what it should be. A number asks for another pass after that many ms. Throwing retries with backoff. */
  reconcile(key: string): Promise<void | number>;
}

export interface QueueControllerOptions {
  readonly metrics?: QueueMetricsProvider;
  readonly onError?: (controller: string, key: string, error: unknown) => void;
}

/**
 * Runs a spec on a rate-limited work queue: keys from informer events and from the start,
 * `workers` reconciles at a time, failures logged and retried with exponential backoff.
 * Stopping shuts the queue (its timers too) and waits for reconciles in flight.
 */
export function queueController(spec: QueueControllerSpec, options: QueueControllerOptions = {}): ManagedController {
  let synced = false;
  return {
    name: spec.name,
    get synced() {
      return synced;
    },
    async run(signal) {
      if (signal.aborted) return;
      const queue = new WorkQueue({ metrics: options.metrics?.(spec.name) });
      const unwatch = spec.watch(queue);
      const first = new Set(spec.initialKeys());
      for (const key of first) queue.add(key);
      synced = first.size === 0;
      const onAbort = (): void => queue.shutDown();
      signal.addEventListener("abort", onAbort, { once: true });
      const worker = async (): Promise<void> => {
        for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
          try {
            const again = await spec.reconcile(key);
            queue.forget(key);
            if (typeof again === "number") queue.addAfter(key, again);
          } catch (error) {
            if (!signal.aborted) {
              options.onError?.(spec.name, key, error);
              queue.addRateLimited(key);
            }
          } finally {
            queue.done(key);
            if (first.delete(key) && first.size === 0) synced = true;
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: spec.workers ?? 1 }, worker));
      } finally {
        signal.removeEventListener("abort", onAbort);
        unwatch();
      }
    },
  };
}
