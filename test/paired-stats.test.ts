import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mapSpread, mergePaired, palindromeOf, perRound, runPaired, spread, verdict, type PairedResult } from "../bench/lib/paired.js";
import { type Json, POOLED_TARGETS, pooledFigures } from "../bench/lib/pool.js";
import { REPO_ROOT } from "./helpers/cli.js";

/** Variants whose bursts only record `<name><ops>` in `calls`, in the order they were asked for. */
function recordingVariant(calls: string[]): (name: string) => { name: string; pid: number; burst(ops: number): Promise<void> } {
  return (name) => ({
    name,
    pid: process.pid,
    burst: async (ops) => {
      calls.push(`${name}${ops}`);
    },
  });
}

describe("paired bench statistics (bench/lib/paired.ts)", () => {
  it("median, quartiles and the median's 95 % interval from order statistics", () => {
    // 30 values 1…30: the binomial(30, ½) interval of the median is the 10th and 21st values.
    const values = Array.from({ length: 30 }, (_, index) => 30 - index);
    const result = spread(values);
    assert.equal(result.median, 15.5);
    assert.equal(result.q1, 8.25);
    assert.equal(result.q3, 22.75);
    assert.deepEqual(result.ci95, [10, 21]);
    // Too few values for a 95 % interval: the whole range.
    assert.deepEqual(spread([3, 1, 2]).ci95, [1, 3]);
  });

  it("verdicts: met or NOT met only when the whole interval is on one side of the bound", () => {
    assert.equal(verdict({ median: 5, q1: 4, q3: 6, ci95: [3, 9] }, 10), "met");
    assert.equal(verdict({ median: 15, q1: 14, q3: 16, ci95: [11, 19] }, 10), "NOT met");
    assert.equal(verdict({ median: 8, q1: 4, q3: 12, ci95: [2, 14] }, 10), "median met, within noise");
    assert.equal(verdict({ median: 12, q1: 4, q3: 14, ci95: [2, 14] }, 10), "median NOT met, within noise");
  });

  it("a decreasing map swaps the ends (rate ratio → throughput cost)", () => {
    const cost = mapSpread({ median: 0.9, q1: 0.8, q3: 0.95, ci95: [0.85, 1.02] }, (ratio) => (1 - ratio) * 100);
    assert.equal(cost.median, 10);
    assert.deepEqual(cost.ci95, [-2, 15]);
    assert.equal(cost.q1, 5);
    assert.equal(cost.q3, 20);
  });

  it("per-round figures pair each variant's burst with the baseline's of the same round", () => {
    const bursts = (cpu: number[]) => cpu.map((cpuMicrosPerOp) => ({ cpuMicrosPerOp, opsPerSecond: 1 }));
    const variant = (name: string, cpu: number[]) => ({ name, cpuMicrosPerOp: spread(cpu), opsPerSecond: spread([1]), bursts: bursts(cpu) });
    const result: PairedResult = {
      rounds: 3,
      opsPerBurst: 1,
      warmOps: 0,
      leadOps: 0,
      variants: [variant("off", [100, 200, 300]), variant("on", [110, 220, 330])],
      comparisons: [],
      otherCpuPercent: 0,
      seconds: 0,
    };
    // Rounds differ threefold, the ratio within each round does not.
    assert.deepEqual(spread(result.variants[1]?.bursts.map((burst) => burst.cpuMicrosPerOp) ?? []).median, 220);
    const ratio = perRound(result, "on", "off", (on, off) => on.cpuMicrosPerOp / off.cpuMicrosPerOp);
    assert.ok(Math.abs(ratio.median - 1.1) < 1e-9 && Math.abs(ratio.q1 - 1.1) < 1e-9 && Math.abs(ratio.q3 - 1.1) < 1e-9);
  });

  it("rounds are palindromic: each variant's burst in two halves, mirrored, so a steady drift in load hits every variant alike", async () => {
    assert.deepEqual(palindromeOf(["A", "B"], 0), ["A", "B", "B", "A"]);
    assert.deepEqual(palindromeOf(["A", "B"], 1), ["B", "A", "A", "B"]);
    assert.deepEqual(palindromeOf(["A", "B", "C"], 0), ["A", "B", "C", "C", "B", "A"]);
    const calls: string[] = [];
    const variant = recordingVariant(calls);
    const result = await runPaired([variant("A"), variant("B")], { rounds: 2, opsPerBurst: 11, warmOps: 11, leadFraction: 0 });
    // One warm-up burst each, then per round the two halves (6 and 5 operations) of each variant.
    assert.deepEqual(calls, ["A11", "B11", "A6", "B6", "B5", "A5", "B6", "A6", "A5", "B5"]);
    assert.equal(result.variants[0]?.bursts.length, 2);
    assert.equal(result.comparisons[0]?.cpuRatio.median !== undefined, true);
  });
  it("every measured half follows an unmeasured lead-in of the same server, so no variant starts a half on another's caches", async () => {
    const calls: string[] = [];
    const variant = recordingVariant(calls);
    const result = await runPaired([variant("A"), variant("B"), variant("C")], { rounds: 1, opsPerBurst: 20, warmOps: 20 });
    // Halves of 10; the lead-in is a fifth of a half (2 operations), unmeasured: each variant's figure counts its 20 operations only.
    assert.deepEqual(calls, ["A20", "B20", "C20", "A2", "A10", "B2", "B10", "C2", "C10", "C2", "C10", "B2", "B10", "A2", "A10"]);
    assert.equal(result.leadOps, 2);
    assert.equal(result.variants[1]?.bursts.length, 1);
  });
  it("generations of server processes pool their rounds, variants matched by name, each round against its own baseline", () => {
    const run = (names: string[], cpu: number[][], seconds: number, other: number): PairedResult => ({
      rounds: cpu[0]?.length ?? 0,
      opsPerBurst: 10,
      warmOps: 5,
      leadOps: 0,
      variants: names.map((name, at) => ({
        name,
        cpuMicrosPerOp: spread(cpu[at] ?? []),
        opsPerSecond: spread([1]),
        bursts: (cpu[at] ?? []).map((cpuMicrosPerOp) => ({ cpuMicrosPerOp, opsPerSecond: 1000 / cpuMicrosPerOp })),
      })),
      comparisons: [],
      otherCpuPercent: other,
      seconds,
    });
    // The second generation's processes are slower throughout; within each round "on" costs 10 % more.
    const merged = mergePaired([
      run(
        ["off", "on"],
        [
          [100, 100],
          [110, 110],
        ],
        2,
        1,
      ),
      run(
        ["off", "on"],
        [
          [200, 200, 200],
          [220, 220, 220],
        ],
        3,
        6,
      ),
    ]);
    assert.equal(merged.rounds, 5);
    assert.deepEqual(
      merged.variants.map((variant) => variant.bursts.length),
      [5, 5],
    );
    assert.equal(merged.variants[1]?.name, "on");
    assert.ok(Math.abs((merged.comparisons[0]?.cpuRatio.median ?? 0) - 1.1) < 1e-9);
    assert.ok(Math.abs((merged.comparisons[0]?.cpuRatio.ci95[1] ?? 0) - 1.1) < 1e-9);
    assert.equal(merged.comparisons[0]?.cpuMicrosDelta.median, 20);
    assert.equal(merged.otherCpuPercent, 4);
    assert.equal(merged.seconds, 5);
  });

  it("pools several runs' rounds, each still paired within its own run", () => {
    const bursts = (cpu: readonly number[]) => cpu.map((value) => ({ cpuMicrosPerOp: value, opsPerSecond: 1e6 / value }));
    const run = (off: readonly number[], on: readonly number[]): Json => ({
      serverProcess: {
        paired: {
          variants: [
            { name: "every named plugin off", bursts: bursts(off) },
            { name: "default chain", bursts: bursts(on) },
          ],
        },
      },
    });
    // Shares per round: run 1 20 %, 20 %, 20 %; run 2 0 %, 10 %, 10 % (its second process is slower throughout, as identical processes can be).
    const figures = pooledFigures("admission", [run([400, 400, 400], [500, 500, 500]), run([500, 450, 450], [500, 500, 500])]);
    const [figure] = figures ?? [];
    assert.equal(figure?.rounds, 6);
    assert.deepEqual(
      figure?.runMedians.map((value) => Math.round(value)),
      [20, 10],
    );
    assert.equal(Math.round(figure?.pooled.median ?? Number.NaN), 15);
    assert.equal(figure?.verdict, "median met, within noise");
    assert.equal(pooledFigures("unknown", []), undefined);
  });

  it("pools the suites' own result files: every target finds its variants in the newest committed run", () => {
    const dir = join(REPO_ROOT, "bench", "results");
    for (const suite of Object.keys(POOLED_TARGETS)) {
      const newest = readdirSync(dir)
        .filter((file) => new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${suite}\\.json$`).test(file))
        .sort()
        .at(-1);
      assert.ok(newest !== undefined, `a committed ${suite} result`);
      const figures = pooledFigures(suite, [JSON.parse(readFileSync(join(dir, newest), "utf8")) as Json]) ?? [];
      for (const figure of figures) assert.ok(figure.rounds > 0, `${suite}: ${figure.label} found no rounds in ${newest}`);
    }
  });
});
