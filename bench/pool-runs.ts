/**
 * Pools the rounds of several runs of one paired suite into one figure per target
 * (`bench/lib/pool.ts`): runs swing by several points from one to the next, so a claim against a
 * target reads better from several runs pooled than from the luckiest one.
 *
 *   node dist/bench/pool-runs.js admission|audit|flowcontrol <result.json>...
 */
import { readFileSync } from "node:fs";
import { round } from "./lib/stats.js";
import { describeSpread } from "./lib/paired.js";
import { type Json, POOLED_TARGETS, pooledFigures } from "./lib/pool.js";

function main(): void {
  const [suite, ...files] = process.argv.slice(2);
  const figures =
    suite === undefined || files.length === 0
      ? undefined
      : pooledFigures(
          suite,
          files.map((file) => JSON.parse(readFileSync(file, "utf8")) as Json),
        );
  if (figures === undefined) {
    process.stderr.write(`usage: pool-runs ${Object.keys(POOLED_TARGETS).join("|")} <result.json>...\n`);
    process.exitCode = 2;
    return;
  }
  for (const figure of figures) {
    process.stdout.write(
      `${figure.label}: ${describeSpread(figure.pooled, " %")} over ${figure.rounds} rounds of ${files.length} runs (run medians ${figure.runMedians.map((value) => `${round(value)} %`).join(", ")}) — target ≤ ${figure.bound} %: ${figure.verdict}\n`,
    );
  }
}

main();
