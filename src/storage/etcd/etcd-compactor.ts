/**
 * Compaction shared by every server on one etcd, as kube-apiserver does it: each server takes a
 * turn per interval (EtcdStorage.compactTurn), and the compare-and-swap on `compact_rev_key`'s
 * version lets one of them compact per interval, to a revision at least one interval old.
 */
import type { CompactorOptions } from "../compactor.js";
import { isStorageError } from "../errors.js";
import type { CompactionResult, CompactionTurn, EtcdStorage } from "./etcd-storage.js";

export interface EtcdCompactor {
  /** One turn now (what the timer runs); resolves with its result. */
  turn(): Promise<CompactionResult>;
  stop(): void;
}

export function startEtcdCompactor(storage: EtcdStorage, options: CompactorOptions & { readonly timer?: boolean }): EtcdCompactor {
  if (!Number.isFinite(options.intervalMs) || options.intervalMs <= 0) {
    throw new RangeError(`compaction interval must be positive, got ${options.intervalMs}`);
  }
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(`etcd compaction failed: ${String(error)}`));
  let state: CompactionTurn = { version: 0, revision: 0 };
  let running: Promise<CompactionResult> | undefined;
  let stopped = false;

  const turn = (): Promise<CompactionResult> => {
    // A slow turn just delays the next one.
    running ??= storage.compactTurn(state).then(
      (result) => {
        state = result.next;
        running = undefined;
        return result;
      },
      (error: unknown) => {
        running = undefined;
        throw error;
      },
    );
    return running;
  };
  const tick = (): void => {
    if (stopped || running !== undefined) return;
    turn().catch((error: unknown) => {
      if (isStorageError(error, "Closed")) stop();
      else if (!stopped) onError(error);
    });
  };
  const timer = options.timer === false ? undefined : setInterval(tick, options.intervalMs);
  timer?.unref();
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
  };
  return { turn, stop };
}
