/**
 * Pools the rounds of several runs of one paired suite (their result JSON, same code) into
 * one figure per target: each run's rounds keep their own pairing (a round is set against the
 * baseline's burst of the same round), the per-round figures of every run are then taken
 * together. Runs of a suite swing by several points from one to the next (each measures a handful
 * of server processes, and identical processes differ for their whole life), so a claim against a
 * target reads better from several runs pooled than from the luckiest one.
 * The command line: `bench/pool-runs.ts`.
 */
import { type BurstSample, roundFigures, type Spread, spread, type VariantSummary, verdict } from "./paired.js";

/** A paired result as its JSON reads back (`pairedJson`). */
interface Paired {
  readonly protocol?: string;
  readonly variants: readonly Pick<VariantSummary, "name" | "bursts">[];
}

export type Json = Record<string, unknown>;

/** The runs' paired results of one figure, by label. */
interface Target {
  readonly label: string;
  readonly bound: number;
  readonly rounds: (run: Json) => number[];
}

const throughputCost = (mine: BurstSample, theirs: BurstSample): number => (1 - mine.opsPerSecond / theirs.opsPerSecond) * 100;

function auditTarget(protocol: string): Target {
  return {
    label: `audit Metadata → file, ${protocol === "h2" ? "HTTP/2" : "HTTP/1.1"}: % of throughput`,
    bound: 10,
    rounds: (run) => {
      const paired = (run["paired"] as Paired[]).find((entry) => entry.protocol === protocol);
      return paired === undefined ? [] : roundFigures(paired, "audit Metadata → file", "audit off", throughputCost);
    },
  };
}

export const POOLED_TARGETS: Readonly<Record<string, readonly Target[]>> = {
  admission: [
    {
      label: "admission chain: % of a pod create's server CPU",
      bound: 15,
      rounds: (run) =>
        roundFigures(
          (run["serverProcess"] as { paired: Paired }).paired,
          "default chain",
          "every named plugin off",
          (on, off) => ((on.cpuMicrosPerOp - off.cpuMicrosPerOp) / on.cpuMicrosPerOp) * 100,
        ),
    },
  ],
  audit: [auditTarget("h2"), auditTarget("h1")],
  flowcontrol: [
    {
      label: "API priority and fairness: % of throughput",
      bound: 10,
      rounds: (run) =>
        roundFigures(
          (run["serverProcesses"] as { paired: Paired }).paired,
          "APF on (default)",
          "APF off (--enable-priority-and-fairness=false)",
          throughputCost,
        ),
    },
  ],
};

/** One pooled figure: the spread of every run's per-round figures together, each run's own median, the verdict. */
export interface PooledFigure {
  readonly label: string;
  readonly bound: number;
  readonly pooled: Spread;
  readonly rounds: number;
  readonly runMedians: readonly number[];
  readonly verdict: string;
}

/** The suite's figures over `runs` (parsed result files), or undefined for a suite without pooled targets. */
export function pooledFigures(suite: string, runs: readonly Json[]): PooledFigure[] | undefined {
  const targets = POOLED_TARGETS[suite];
  if (targets === undefined) return undefined;
  return targets.map((target) => {
    const perRun = runs.map((run) => target.rounds(run));
    const pooled = spread(perRun.flat());
    return {
      label: target.label,
      bound: target.bound,
      pooled,
      rounds: perRun.flat().length,
      runMedians: perRun.map((rounds) => spread(rounds).median),
      verdict: verdict(pooled, target.bound),
    };
  });
}
