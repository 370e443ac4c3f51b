/** The longest Retry-After flow control answers, in seconds. */
const MAX_RETRY_AFTER = 32;

/** Drops seen in one wall-clock second. */
interface SecondCount {
  readonly second: number;
  readonly count: number;
}

/** One priority level's recent drops and the Retry-After they call for. */
class LevelDrops {
  /** Past seconds with drops, oldest first; only as far back as the next decision can look. */
  private history: SecondCount[] = [];
  private second = 0;
  private count = 0;
  retryAfter = 1;
  /** When `retryAfter` last grew (0: it may grow at the first chance). */
  private grewAt = 0;

  record(second: number): void {
    if (second === this.second) {
      this.count++;
      return;
    }
    this.remember(this.second, this.count);
    this.second = second;
    this.count = 1;
    this.reconsider(second);
  }

  private remember(second: number, count: number): void {
    this.history.push({ second, count });
    const reach = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
    let start = 0;
    while (start < this.history.length && second - (this.history[start] as SecondCount).second > reach) start++;
    if (start > 0) this.history = this.history.slice(start);
  }

  /**
   * At the start of a new second with drops: the drops of the `retryAfter` seconds before it decide.
   * At least three per second of the current Retry-After (and no growth within the last
   * Retry-After) double it, up to 32 s; fewer than one per second shrink it by a second, down to 1.
   */
  private reconsider(second: number): void {
    let dropped = 0;
    for (let index = this.history.length - 1; index >= 0; index--) {
      const entry = this.history[index] as SecondCount;
      if (second - entry.second > this.retryAfter) break;
      if (entry.second < second) dropped += entry.count;
    }
    if (second - this.grewAt >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
      this.grewAt = second;
    } else if (dropped < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
  }
}

/**
 * kube's dropped-requests tracker for flow control's 429s: each priority level's Retry-After
 * starts at 1 s and moves with the level's recent rejections, as TCP's window does — doubled
 * (to at most 32 s) while rejections keep coming at three or more per second of the current
 * value, one second less once they fall below one per second. Decisions are made when a
 * rejection opens a new wall-clock second. `nowMs` is for tests.
 */
export class DroppedRequests {
  private readonly levels = new Map<string, LevelDrops>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** Notes a rejection in `level` and answers the Retry-After (seconds) to send with it. */
  record(level: string): number {
    let drops = this.levels.get(level);
    if (drops === undefined) {
      drops = new LevelDrops();
      this.levels.set(level, drops);
    }
    drops.record(Math.floor(this.nowMs() / 1000));
    return drops.retryAfter;
  }

  /** The Retry-After `level` answers now, in seconds. */
  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}
