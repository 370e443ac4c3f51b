/**
 * Periodic history compaction, as kube-apiserver does it: at every tick, compact to the
 * revision that was current at the previous tick (the first tick uses the revision at
 * start), so at least one interval of history stays readable for watchers and old reads.
 */
import { isStorageError } from "./errors.js";
import type { Storage } from "./interface.js";

export interface CompactorOptions {
  readonly intervalMs: number;
  /** Called when a compaction fails (default: a process warning). Not called once the storage is closed. */
  readonly onError?: (error: unknown) => void;
}

export function startCompactor(storage: Storage, options: CompactorOptions): { stop(): void } {
  if (!Number.isFinite(options.intervalMs) || options.intervalMs <= 0) {
    throw new RangeError(`compaction interval must be positive, got ${options.intervalMs}`);
  }
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(`storage compaction failed: ${String(error)}`));
  let previous = storage.currentRevision();
  let running = false;
  let stopped = false;

  const tick = (): void => {
    if (running || stopped) return; // a slow compaction just delays the next one
    const target = previous;
    previous = storage.currentRevision();
    if (target <= storage.compactedRevision()) return;
    running = true;
    storage.compact(target).then(
      () => {
        running = false;
      },
      (error: unknown) => {
        running = false;
        if (isStorageError(error, "Closed")) stop();
        else if (!stopped) onError(error);
      },
    );
  };

  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
  };
  return { stop };
}
