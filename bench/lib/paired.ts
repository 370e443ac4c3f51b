/**
 * Paired A/B measurement of server processes on a shared, loaded machine. Every variant is a
 * server process started at the same time with the same flags but the variant's; all are warmed
 * alike; then many short bursts alternate between them, so drift in the machine's load hits every
 * variant alike. A round is palindromic: each variant's burst is split in two halves run in
 * mirrored order (two variants: A B B A; three: A B C C B A), and the round's figure of a variant
 * is its two halves together, so every variant's burst is centred on the same moment and a load
 * that rises or falls steadily through the round hits them all alike (with one whole burst each,
 * A then B, such a drift went wholly into that round's ratio: it cancelled only across rounds, as
 * noise). The first variant alternates between rounds. Per burst: the server process's CPU (the
 * sum of its threads' run time from /proc/<pid>/task/<tid>/schedstat, nanoseconds, instead of
 * /proc/<pid>/stat's 10 ms ticks) and the burst's wall time. Per round, each variant's figure is
 * set against the baseline's of the same round (ratio and difference); the medians of those and
 * their spread (quartiles and a distribution-free 95 % interval of the median) say whether a
 * target is met beyond noise.
 */
import { readdirSync, readFileSync } from "node:fs";
import { machineBusyCpuSeconds, processCpuSeconds } from "./processes.js";
import { round } from "./stats.js";

/** One variant: a server process and a way to send it `ops` operations. */
export interface PairedVariant {
  readonly name: string;
  /** The server process whose CPU is the variant's. */
  readonly pid: number;
  /** Sends `ops` operations (closed loop) and resolves once every one is answered as expected. */
  burst(ops: number): Promise<void>;
}

export interface PairedOptions {
  /** Rounds: every variant runs one burst per round (two variants: pairs), in two mirrored halves. */
  readonly rounds: number;
  /** Operations per burst, or the most per burst when `burstSeconds` sizes them. */
  readonly opsPerBurst: number;
  /**
   * Sizes the bursts from the warm-up's last rate so one takes about this long (at least
   * minOpsPerBurst operations, at most opsPerBurst): a run then takes about rounds × variants × burstSeconds
   * whatever the machine's load.
   */
  readonly burstSeconds?: number;
  /** The fewest operations a sized burst gets (default 100): enough server CPU per burst that idle work and scheduling stay small beside it. */
  readonly minOpsPerBurst?: number;
  /** Operations each variant answers before the first measured round, in bursts that alternate too. */
  readonly warmOps: number;
  /**
   * The unmeasured lead-in before each measured half, as a fraction of the half's operations
   * (default LEAD_FRACTION; `ORCH_BENCH_PAIRED_LEAD` overrides it, 0 for none): see LEAD_FRACTION.
   */
  readonly leadFraction?: number;
  /** Called before each round (progress, a quiet gate). */
  readonly onRound?: (index: number) => void | Promise<void>;
}

/** One burst of one variant. */
export interface BurstSample {
  readonly cpuMicrosPerOp: number;
  readonly opsPerSecond: number;
}

/** Median, quartiles and the 95 % interval of the median (order statistics), of a sample. */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly ci95: readonly [number, number];
}

export interface VariantSummary {
  readonly name: string;
  readonly cpuMicrosPerOp: Spread;
  readonly opsPerSecond: Spread;
  readonly bursts: readonly BurstSample[];
}

/** A variant against the baseline (variant 0), from each round's pair. */
export interface Comparison {
  readonly variant: string;
  readonly baseline: string;
  /** variant CPU per op / baseline's, per round. */
  readonly cpuRatio: Spread;
  /** variant CPU µs per op − baseline's, per round. */
  readonly cpuMicrosDelta: Spread;
  /** variant ops/s / baseline's, per round. */
  readonly rateRatio: Spread;
}

export interface PairedResult {
  readonly rounds: number;
  readonly opsPerBurst: number;
  readonly warmOps: number;
  /** Unmeasured operations just before each measured half (LEAD_FRACTION). */
  readonly leadOps: number;
  readonly variants: readonly VariantSummary[];
  readonly comparisons: readonly Comparison[];
  /** CPU everything else on the machine used during the measured rounds, in % of one core. */
  readonly otherCpuPercent: number;
  readonly seconds: number;
}

/** Nanoseconds of CPU a live process's threads have run (schedstat), or /proc/<pid>/stat's ticks when schedstat is missing. */
export function processCpuNanos(pid: number): number {
  let total = 0;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return processCpuSeconds(pid) * 1e9;
  }
  for (const tid of threads) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ", 1)[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return total;
}

/** Linear-interpolated quantile of sorted values (q in [0, 1]). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] ?? Number.NaN) + ((sorted[high] ?? Number.NaN) - (sorted[low] ?? Number.NaN)) * (at - low);
}

/** Ranks (0-based) bounding a 95 % confidence interval of the median of n values: the binomial(n, ½) tails. */
function medianIntervalRanks(n: number): [number, number] {
  // Largest j with P(Bin(n, ½) ≤ j − 1) ≤ 2.5 %: the interval is [x(j), x(n−j+1)] (1-based).
  let cumulative = 0;
  let probability = 0.5 ** n;
  let j = 0;
  for (let k = 0; k < n; k++) {
    if (cumulative + probability > 0.025) break;
    cumulative += probability;
    j = k + 1;
    probability = (probability * (n - k)) / (k + 1);
  }
  const lower = Math.max(0, j - 1 + (j === 0 ? 1 : 0));
  return [lower, n - 1 - lower];
}

/** No figures (a comparison that did not run). */
export const NO_SPREAD: Spread = { median: Number.NaN, q1: Number.NaN, q3: Number.NaN, ci95: [Number.NaN, Number.NaN] };

/** Median, quartiles and the 95 % interval of the median. */
export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const [low, high] = medianIntervalRanks(sorted.length);
  return {
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    ci95: [sorted[low] ?? Number.NaN, sorted[high] ?? Number.NaN],
  };
}

/** A spread mapped through a monotonic function (e.g. a ratio to a percentage), rounded for a report. */
export function mapSpread(value: Spread, map: (x: number) => number): Spread {
  const ends = [map(value.ci95[0]), map(value.ci95[1])].sort((a, b) => a - b);
  const quartiles = [map(value.q1), map(value.q3)].sort((a, b) => a - b);
  return {
    median: round(map(value.median)),
    q1: round(quartiles[0] ?? Number.NaN),
    q3: round(quartiles[1] ?? Number.NaN),
    ci95: [round(ends[0] ?? Number.NaN), round(ends[1] ?? Number.NaN)],
  };
}

/** "12.3 (IQR 10.1…14.2; 95 % CI 11.0…13.1)". */
export function describeSpread(value: Spread, unit = ""): string {
  const r = mapSpread(value, (x) => x);
  return `${r.median}${unit} (IQR ${r.q1}…${r.q3}${unit}; median's 95 % CI ${r.ci95[0]}…${r.ci95[1]}${unit})`;
}

/** "met" when the interval is wholly within the bound, "NOT met" when wholly beyond, else "undecided (noise)". */
export function verdict(value: Spread, bound: number): string {
  if (value.ci95[1] <= bound) return "met";
  if (value.ci95[0] > bound) return "NOT met";
  return value.median <= bound ? "median met, within noise" : "median NOT met, within noise";
}

const SETTLE_MS = 15;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What one or more bursts of a variant took: server CPU (ns), wall time (s) and operations. */
interface BurstTotals {
  cpuNanos: number;
  seconds: number;
  ops: number;
}

/**
 * Each measured half follows an unmeasured lead-in of the same server, so it starts with the
 * caches holding that server's own working set whichever process ran before it. Without it only
 * the variant whose two halves meet in the middle of a round (A B C C B A: C on even rounds, A on
 * odd ones) ever started warm, and a middle variant (B of three) never did: identical processes
 * measured 10–20 % apart by position alone (audit suite over HTTP/1.1, 2026-11-28), a bias against
 * the variant placed in the middle.
 */
const LEAD_FRACTION = 0.2;

function leadFractionOf(options: PairedOptions): number {
  const override = Number(process.env["ORCH_BENCH_PAIRED_LEAD"] ?? Number.NaN);
  if (Number.isFinite(override) && override >= 0) return override;
  return options.leadFraction ?? LEAD_FRACTION;
}

/** One burst: the server's CPU from just before to a moment after the last answer (its follow-up work: audit flushes, watch fan-out), added to `into`. */
async function measureBurst(variant: PairedVariant, ops: number, into: BurstTotals): Promise<void> {
  const cpuBefore = processCpuNanos(variant.pid);
  const started = performance.now();
  await variant.burst(ops);
  into.seconds += (performance.now() - started) / 1000;
  await sleep(SETTLE_MS);
  into.cpuNanos += processCpuNanos(variant.pid) - cpuBefore;
  into.ops += ops;
}

/** The order of round `index`: forward on even rounds, reversed on odd ones. */
function orderOf<T>(items: readonly T[], index: number): T[] {
  return index % 2 === 0 ? [...items] : [...items].reverse();
}

/** A round's bursts: the round's order, then the same reversed (two variants: A B B A on even rounds, B A A B on odd ones). */
export function palindromeOf<T>(items: readonly T[], index: number): T[] {
  const order = orderOf(items, index);
  return [...order, ...[...order].reverse()];
}

/** `ORCH_BENCH_PAIRED_ROUNDS=N` overrides every suite's round count (more rounds: a narrower interval, a longer run). */
function roundsOverride(): number | undefined {
  const value = Number(process.env["ORCH_BENCH_PAIRED_ROUNDS"] ?? Number.NaN);
  return Number.isInteger(value) && value >= 2 ? value : undefined;
}

/** Warms every variant alike, then measures `rounds` rounds; variant 0 is the baseline of every comparison. */
export async function runPaired(variants: readonly PairedVariant[], given: PairedOptions): Promise<PairedResult> {
  if (variants.length < 2) throw new Error("runPaired needs a baseline and at least one variant");
  const options = { ...given, rounds: roundsOverride() ?? given.rounds };
  const warmBursts = Math.max(1, Math.ceil(options.warmOps / options.opsPerBurst));
  const warmSize = Math.min(options.opsPerBurst, options.warmOps);
  let lastWarmRate = Number.POSITIVE_INFINITY;
  for (let index = 0; index < warmBursts; index++) {
    for (const variant of orderOf(variants, index)) {
      const began = performance.now();
      await variant.burst(warmSize);
      lastWarmRate = Math.min(lastWarmRate, warmSize / ((performance.now() - began) / 1000));
    }
    if (index < warmBursts - 1) lastWarmRate = Number.POSITIVE_INFINITY;
  }
  const opsPerBurst =
    options.burstSeconds === undefined
      ? options.opsPerBurst
      : Math.max(options.minOpsPerBurst ?? 100, Math.min(options.opsPerBurst, Math.round((lastWarmRate * options.burstSeconds) / 10) * 10));
  const samples = variants.map(() => [] as BurstSample[]);
  const pids = variants.map((variant) => variant.pid);
  const started = performance.now();
  const machineBefore = machineBusyCpuSeconds();
  const serversBefore = pids.reduce((sum, pid) => sum + processCpuNanos(pid), 0);
  const ownBefore = process.cpuUsage();
  // Each variant's burst in two halves, mirrored within the round (see the file's comment).
  const halves = [Math.ceil(opsPerBurst / 2), Math.floor(opsPerBurst / 2)];
  const leadOps = Math.ceil((halves[0] ?? 0) * leadFractionOf(options));
  for (let index = 0; index < options.rounds; index++) {
    await options.onRound?.(index);
    const totals = variants.map((): BurstTotals => ({ cpuNanos: 0, seconds: 0, ops: 0 }));
    const legs = variants.map(() => 0);
    for (const position of palindromeOf(
      variants.map((_, at) => at),
      index,
    )) {
      const leg = legs[position] ?? 0;
      legs[position] = leg + 1;
      const ops = halves[leg] ?? 0;
      if (ops === 0) continue;
      const variant = variants[position] as PairedVariant;
      if (leadOps > 0) await variant.burst(leadOps);
      await measureBurst(variant, ops, totals[position] as BurstTotals);
    }
    totals.forEach((total, position) => {
      samples[position]?.push({ cpuMicrosPerOp: total.cpuNanos / 1000 / total.ops, opsPerSecond: total.ops / total.seconds });
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const servers = (pids.reduce((sum, pid) => sum + processCpuNanos(pid), 0) - serversBefore) / 1e9;
  const other = machineBusyCpuSeconds() - machineBefore - servers - (own.user + own.system) / 1e6;
  return summarize(
    variants.map((variant) => variant.name),
    samples,
    {
      rounds: options.rounds,
      opsPerBurst,
      warmOps: options.warmOps,
      leadOps,
      otherCpuPercent: round(Math.max(0, (other / seconds) * 100)),
      seconds: round(seconds),
    },
  );
}

type RunFacts = Pick<PairedResult, "rounds" | "opsPerBurst" | "warmOps" | "leadOps" | "otherCpuPercent" | "seconds">;

/** Spreads per variant and each variant's per-round comparisons with variant 0, from the bursts of every round. */
function summarize(names: readonly string[], samples: readonly (readonly BurstSample[])[], facts: RunFacts): PairedResult {
  const base = samples[0] ?? [];
  const perRound = (of: readonly BurstSample[], pick: (mine: BurstSample, baseline: BurstSample) => number): number[] =>
    of.map((sample, at) => pick(sample, base[at] as BurstSample));
  return {
    ...facts,
    variants: names.map((name, at) => {
      const bursts = samples[at] ?? [];
      return {
        name,
        cpuMicrosPerOp: spread(bursts.map((sample) => sample.cpuMicrosPerOp)),
        opsPerSecond: spread(bursts.map((sample) => sample.opsPerSecond)),
        bursts,
      };
    }),
    comparisons: names.slice(1).map((name, at) => {
      const mine = samples[at + 1] ?? [];
      return {
        variant: name,
        baseline: names[0] ?? "",
        cpuRatio: spread(perRound(mine, (sample, baseline) => sample.cpuMicrosPerOp / baseline.cpuMicrosPerOp)),
        cpuMicrosDelta: spread(perRound(mine, (sample, baseline) => sample.cpuMicrosPerOp - baseline.cpuMicrosPerOp)),
        rateRatio: spread(perRound(mine, (sample, baseline) => sample.opsPerSecond / baseline.opsPerSecond)),
      };
    }),
  };
}

/**
 * Several paired runs of the same variants (each with its own server processes: a "generation")
 * as one: their rounds pooled, variants matched by name (the first run's order; variant 0 the
 * baseline). Identical server processes differ from one another by a few percent for as long as
 * they live (JIT and memory layout), so one process per variant puts that difference whole into
 * every round of a run; fresh processes per generation spread it over the pooled rounds.
 */
export function mergePaired(results: readonly PairedResult[]): PairedResult {
  const first = results[0];
  if (first === undefined) throw new Error("mergePaired needs at least one result");
  const names = first.variants.map((variant) => variant.name);
  const samples = names.map((name) => results.flatMap((result) => result.variants.find((variant) => variant.name === name)?.bursts ?? []));
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  const other = results.reduce((sum, result) => sum + result.otherCpuPercent * result.seconds, 0);
  return summarize(names, samples, {
    rounds: results.reduce((sum, result) => sum + result.rounds, 0),
    opsPerBurst: first.opsPerBurst,
    warmOps: first.warmOps,
    leadOps: first.leadOps,
    otherCpuPercent: round(seconds > 0 ? other / seconds : 0),
    seconds: round(seconds),
  });
}

/** A figure per round from two variants' bursts of that round (by name), and its spread. */
export function perRound(result: PairedResult, variant: string, baseline: string, pick: (mine: BurstSample, theirs: BurstSample) => number): Spread {
  return spread(roundFigures(result, variant, baseline, pick));
}

/** perRound's figures themselves, round by round (also of a result read back from its JSON: `pool.ts`). */
export function roundFigures(
  result: Pick<PairedResult, "variants"> | { readonly variants: readonly Pick<VariantSummary, "name" | "bursts">[] },
  variant: string,
  baseline: string,
  pick: (mine: BurstSample, theirs: BurstSample) => number,
): number[] {
  const mine = result.variants.find((entry) => entry.name === variant)?.bursts ?? [];
  const theirs = result.variants.find((entry) => entry.name === baseline)?.bursts ?? [];
  return mine.flatMap((sample, at) => (theirs[at] === undefined ? [] : [pick(sample, theirs[at] as BurstSample)]));
}

/** The rows of a Markdown table of a paired run: per variant, then per comparison. */
export function pairedTables(result: PairedResult, opName: string): string[] {
  const r = (value: number): string => String(round(value));
  const lines = [
    `| variant | server CPU µs / ${opName} (median, IQR) | ${opName}s/s (median, IQR) |`,
    "|---|---|---|",
    ...result.variants.map(
      (variant) =>
        `| ${variant.name} | ${r(variant.cpuMicrosPerOp.median)} (${r(variant.cpuMicrosPerOp.q1)}…${r(variant.cpuMicrosPerOp.q3)}) | ${r(variant.opsPerSecond.median)} (${r(variant.opsPerSecond.q1)}…${r(variant.opsPerSecond.q3)}) |`,
    ),
    "",
    "| variant vs baseline, per round | CPU ratio: median (IQR; median's 95 % CI) | CPU µs delta: median (IQR; 95 % CI) | rate ratio: median (IQR; 95 % CI) |",
    "|---|---|---|---|",
    ...result.comparisons.map((comparison) => {
      const show = (value: Spread): string => `${r(value.median)} (${r(value.q1)}…${r(value.q3)}; ${r(value.ci95[0])}…${r(value.ci95[1])})`;
      return `| ${comparison.variant} vs ${comparison.baseline} | ${show(comparison.cpuRatio)} | ${show(comparison.cpuMicrosDelta)} | ${show(comparison.rateRatio)} |`;
    }),
  ];
  return lines;
}

/** A result for the JSON file: spreads rounded. */
export function pairedJson(result: PairedResult): unknown {
  const rounded = (value: Spread): Spread => mapSpread(value, (x) => x);
  return {
    ...result,
    variants: result.variants.map((variant) => ({
      ...variant,
      cpuMicrosPerOp: rounded(variant.cpuMicrosPerOp),
      opsPerSecond: rounded(variant.opsPerSecond),
      bursts: variant.bursts.map((sample) => ({ cpuMicrosPerOp: round(sample.cpuMicrosPerOp), opsPerSecond: round(sample.opsPerSecond) })),
    })),
    comparisons: result.comparisons.map((comparison) => ({
      ...comparison,
      cpuRatio: rounded(comparison.cpuRatio),
      cpuMicrosDelta: rounded(comparison.cpuMicrosDelta),
      rateRatio: rounded(comparison.rateRatio),
    })),
  };
}
