import { setTimeout as delay } from "node:timers/promises";

export interface WaitOptions {
  /** Give up after this long (a deadline, not a sleep: the condition is polled until it holds). */
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Names the condition in the timeout error. */
  readonly what: string;
  /** Stops polling early: waitFor rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * Polls `check` until it returns something other than undefined/false, and returns that value.
 * Throws naming `what` (and the last error `check` threw, if any) when the deadline passes.
 */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError === undefined ? "" : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${options.what}${cause}`);
    }
    await delay(options.intervalMs ?? 20);
  }
}
