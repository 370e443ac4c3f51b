/**
 * Borrowing between priority levels (kube ≥ 1.26, flowcontrol v1beta3/v1): each level's bounds
 * from its configuration, the seat-demand statistics gathered between adjustments, and the
 * periodic reallocation of the server's seats among the levels.
 */

/** A level's configured limits, in seats (kube's NominalCL, MinCL, MaxCL). */
export interface LevelLimits {
  /** ceil(serverCL × nominalConcurrencyShares / Σ shares). */
  readonly nominal: number;
  /** nominal − round(nominal × lendablePercent / 100): what others can never borrow. */
  readonly min: number;
  /** nominal + round(nominal × borrowingLimitPercent / 100); unbounded (serverCL more) when the field is unset. */
  readonly max: number;
}

/** Computes a level's limits from its share of the server and its lend/borrow percentages. */
export function levelLimits(options: {
  readonly serverConcurrencyLimit: number;
  readonly shares: number;
  readonly totalShares: number;
  readonly lendablePercent: number;
  readonly borrowingLimitPercent: number | undefined;
}): LevelLimits {
  const { serverConcurrencyLimit, shares, totalShares } = options;
  const nominal = totalShares <= 0 ? 0 : Math.ceil((serverConcurrencyLimit * shares) / totalShares);
  const lendable = Math.round((nominal * clampPercent(options.lendablePercent)) / 100);
  const borrowing =
    options.borrowingLimitPercent === undefined ? serverConcurrencyLimit : Math.round((nominal * Math.max(0, options.borrowingLimitPercent)) / 100);
  return { nominal, min: nominal - lendable, max: nominal + borrowing };
}

function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, value));
}

/** Seat demand over one adjustment period: time-weighted average, standard deviation and peak. */
export interface DemandStatistics {
  readonly average: number;
  readonly deviation: number;
  readonly highWatermark: number;
}

/**
 * A level's seat demand (seats executing plus seats its waiting requests ask for), integrated over
 * time between adjustments, as kube's seat-demand integrator. The owner calls `set` on every change
 * (one clock read, or none when it passes the time it already read) and `take` once per
 * adjustment period. The default clock is `performance.now()`.
 */
export class SeatDemand {
  private value = 0;
  private since: number;
  private periodStart: number;
  private integral = 0;
  private squares = 0;
  private high = 0;
  private readonly clock: () => number;

  constructor(clock: () => number = () => performance.now()) {
    this.clock = clock;
    this.since = clock();
    this.periodStart = this.since;
  }

  get current(): number {
    return this.value;
  }

  /** Sets the demand from now on; `now` is a reading of this integrator's clock a caller already took (default: one is taken). */
  set(value: number, now: number = this.clock()): void {
    const elapsed = now - this.since;
    this.integral += this.value * elapsed;
    this.squares += this.value * this.value * elapsed;
    this.since = now;
    this.value = value;
    if (value > this.high) this.high = value;
  }

  /** The statistics since the previous call, and starts a new period at the current demand. */
  take(): DemandStatistics {
    this.set(this.value);
    const length = this.since - this.periodStart;
    const average = length > 0 ? this.integral / length : this.value;
    const variance = length > 0 ? Math.max(0, this.squares / length - average * average) : 0;
    const result = { average, deviation: Math.sqrt(variance), highWatermark: this.high };
    this.integral = 0;
    this.squares = 0;
    this.high = this.value;
    this.periodStart = this.since;
    return result;
  }
}

/** kube's smoothing of the demand envelope (avg + stddev) from one period to the next. */
export const DEMAND_SMOOTHING = 0.977;
/** kube's adjustment period for borrowing. */
export const ADJUSTMENT_PERIOD_MS = 10_000;

/** One level's part in an adjustment. */
export interface AllocationItem {
  readonly lower: number;
  readonly upper: number;
  readonly target: number;
}

/**
 * kube's concurrency allocation: finds the fair proportion p such that Σ max(lower, min(upper,
 * p × target)) equals `total`, and returns each level's share at that p (not rounded), with p.
 * When even the lower bounds exceed `total`, every level gets its lower bound; when the upper
 * bounds (or targets) cannot reach it, every level gets what it can take.
 */
export function allocateConcurrency(total: number, items: readonly AllocationItem[]): { allocations: number[]; fairProportion: number } {
  const at = (proportion: number) => items.map((item) => Math.max(item.lower, Math.min(item.upper, proportion * item.target)));
  const sum = (values: readonly number[]) => values.reduce((left, right) => left + right, 0);
  if (items.length === 0) return { allocations: [], fairProportion: 0 };
  if (sum(at(0)) >= total) return { allocations: at(0), fairProportion: 0 };
  // Past this proportion every item with a target sits at its upper bound.
  const ceiling = Math.max(1, ...items.map((item) => (item.target > 0 ? item.upper / item.target : 0)));
  if (sum(at(ceiling)) <= total) return { allocations: at(ceiling), fairProportion: ceiling };
  let low = 0;
  let high = ceiling;
  // The sum grows monotonically with the proportion: bisect to well below a seat.
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    if (sum(at(middle)) < total) low = middle;
    else high = middle;
  }
  return { allocations: at(high), fairProportion: high };
}
