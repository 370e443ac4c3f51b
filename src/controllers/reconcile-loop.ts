/**
 * A level-triggered wake-up: `poke()` marks work pending; `runReconcileLoop` runs `reconcile`
 * once per burst of pokes (pokes during a run cause one more run), until the signal aborts.
 * A failed reconcile is reported and the loop goes on. Starts with work pending.
 */
export class Wake {
  pending = true;
  private notify: () => void = () => {};

  poke(): void {
    this.pending = true;
    this.notify();
  }

  /** Resolves at the next poke (or at once when work is pending or the signal aborted). */
  next(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      this.notify = resolve;
      if (this.pending || signal.aborted) resolve();
    });
  }
}

export async function runReconcileLoop(signal: AbortSignal, wake: Wake, reconcile: () => Promise<void>, onError?: (error: unknown) => void): Promise<void> {
  const onAbort = (): void => wake.poke();
  signal.addEventListener("abort", onAbort, { once: true });
  while (!signal.aborted) {
    if (wake.pending) {
      wake.pending = false;
      try {
        await reconcile();
      } catch (error) {
        onError?.(error);
      }
      continue;
    }
    await wake.next(signal);
  }
}
