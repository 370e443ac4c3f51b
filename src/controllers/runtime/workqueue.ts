import { performance } from "node:perf_hooks";
import { NO_QUEUE_METRICS, type QueueMetrics } from "./queue-metrics.js";
import { defaultRateLimiter, type RateLimiter } from "./rate-limiter.js";

/** The longest delay one timer can wait (setTimeout's limit). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * kube's rate-limited work queue: an item is queued at most once however often it is added, is
 * never handed to two workers at once (added while being worked on, it is queued again after
 * `done`), and a failed item is re-added after the rate limiter's delay. Delay timers are
 * unref'd and cleared by `shutDown`, so the queue never holds the process open.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly waiting = new Map<string, { readonly timer: NodeJS.Timeout; readonly at: number }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics;
  private stopped = false;

  constructor(options: { readonly limiter?: RateLimiter; readonly metrics?: QueueMetrics } = {}) {
    this.limiter = options.limiter ?? defaultRateLimiter();
    this.metrics = options.metrics ?? NO_QUEUE_METRICS("");
    this.metrics.inFlight(() => {
      const now = performance.now();
      let total = 0;
      let longest = 0;
      for (const started of this.processing.values()) {
        total += (now - started) / 1000;
        longest = Math.max(longest, (now - started) / 1000);
      }
      return { total, longest };
    });
  }

  get length(): number {
    return this.queue.length;
  }

  /** Whether nothing is queued, being worked on or waiting for a delay. */
  get idle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0 && this.waiting.size === 0;
  }

  add(key: string): void {
    if (this.stopped || this.dirty.has(key)) return;
    this.metrics.added();
    this.dirty.add(key);
    this.addedAt.set(key, performance.now());
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.take(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.metrics.depth(this.queue.length);
  }

  /**
   * Adds the item after `delayMs` (at once when ≤ 0); of two pending delays for it the one that
   * ends first wins (kube's delaying queue). A delay beyond a timer's reach (2^31-1 ms, 24.8 days)
   * adds the item then: its reconcile asks again for what is left.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const delay = Math.min(delayMs, MAX_TIMER_MS);
    const at = performance.now() + delay;
    const pending = this.waiting.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delay);
    timer.unref();
    this.waiting.set(key, { timer, at });
  }

  /** Re-adds a failed item after its backoff. */
  addRateLimited(key: string): void {
    this.metrics.retried();
    this.addAfter(key, this.limiter.when(key));
  }

  /** Clears an item's failure count (after it succeeded). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  retries(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next item; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.metrics.depth(this.queue.length);
      this.take(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the item's work finished; an add that came meanwhile queues it again. */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started !== undefined) this.metrics.worked((performance.now() - started) / 1000);
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.stopped) {
      const waiter = this.waiters.shift();
      if (waiter !== undefined) {
        this.take(key);
        waiter(key);
        return;
      }
      this.queue.push(key);
      this.metrics.depth(this.queue.length);
    }
  }

  /** Stops handing out items: pending `get`s resolve undefined, delay timers are cleared. */
  shutDown(): void {
    this.stopped = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  private take(key: string): void {
    this.dirty.delete(key);
    this.processing.set(key, performance.now());
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.metrics.queued((performance.now() - added) / 1000);
  }
}
