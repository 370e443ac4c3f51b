/**
 * kube's default controller rate limiter: the larger of a per-item exponential backoff
 * (`baseMs * 2^failures`, capped at `maxMs`) and an overall token bucket (`qps`, `burst`).
 * `forget` resets an item's failures after it succeeds.
 */
export interface RateLimiter {
  /** The delay before the item may be retried; counts one more failure. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

export interface RateLimiterOptions {
  readonly baseMs?: number;
  readonly maxMs?: number;
  readonly qps?: number;
  readonly burst?: number;
  readonly now?: () => number;
}

export function defaultRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const baseMs = options.baseMs ?? 5;
  const maxMs = options.maxMs ?? 1000_000;
  const qps = options.qps ?? 10;
  const burst = options.burst ?? 100;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number>();
  let tokens = burst;
  let last = now();
  return {
    when(key) {
      const count = failures.get(key) ?? 0;
      failures.set(key, count + 1);
      const backoff = Math.min(maxMs, baseMs * 2 ** count);
      // The bucket: refill by elapsed time, take one token, wait for it when none is left.
      const at = now();
      tokens = Math.min(burst, tokens + ((at - last) * qps) / 1000);
      last = at;
      tokens -= 1;
      const bucket = tokens >= 0 ? 0 : (-tokens * 1000) / qps;
      return Math.max(backoff, bucket);
    },
    forget(key) {
      failures.delete(key);
    },
    retries(key) {
      return failures.get(key) ?? 0;
    },
  };
}
