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

/**
 * Polls `probe` every 20 ms until it returns a value (at most `attempts` times); an error the probe
 * throws fails at once. Throws "condition not reached" when the attempts run out.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, attempts = 250): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await delay(20);
  }
  throw new Error("condition not reached");
}
