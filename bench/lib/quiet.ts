/**
 * Keeps other processes' CPU out of the figures on a shared machine: waits for quiet before a
 * phase and repeats a phase during which other processes took CPU, within a time budget.
 * Shared by the foundation and the watch suites.
 */
import { runPhase, type PhaseResult, type PhaseSpec } from "./load.js";
import { backgroundCpuPercent } from "./processes.js";
import { round } from "./stats.js";

/** Other processes' CPU (% of one core) above which the machine counts as busy. */
export const QUIET_THRESHOLD_PERCENT = 15;

const log = (text: string): void => void process.stdout.write(`${text}\n`);
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export class QuietGate {
  private remainingMs: number;
  private waitedMs = 0;
  private repeated: string[] = [];

  constructor(budgetMs: number) {
    this.remainingMs = budgetMs;
  }

  /** Waits until everything but this process and `pids` uses less than the threshold; returns the last sample. */
  async wait(pids: readonly number[] = []): Promise<number> {
    for (;;) {
      const started = performance.now();
      const background = round(await backgroundCpuPercent(400, pids));
      if (background < QUIET_THRESHOLD_PERCENT) return background;
      if (this.remainingMs <= 0) {
        log(`  WARNING: other processes use ${background} % of a core and the wait budget is spent; measuring anyway`);
        return background;
      }
      log(`  machine busy: other processes use ${background} % of a core; waiting (${round(this.remainingMs / 1000)} s of wait budget left)`);
      await sleep(600);
      const spent = performance.now() - started;
      this.remainingMs -= spent;
      this.waitedMs += spent;
    }
  }

  /**
   * Runs `run` in a quiet moment; repeats it (up to `attempts` times in all) when other processes
   * took CPU during it, as long as the budget lasts. `otherCpu` reads the result's "other CPU %".
   */
  async measure<T>(label: string, pids: readonly number[], run: () => Promise<T>, otherCpu: (result: T) => number, costMs: number, attempts = 3): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await this.wait(pids);
      const result = await run();
      const other = otherCpu(result);
      if (other < QUIET_THRESHOLD_PERCENT || attempt >= attempts || this.remainingMs <= 0) return result;
      log(`  (other processes took ${other} % of a core during ${label}; repeating it)`);
      this.repeated.push(label);
      this.remainingMs -= costMs;
    }
  }

  /** A load phase in a quiet moment; repeated (up to twice) when other processes took CPU during it. */
  phase(spec: PhaseSpec): Promise<PhaseResult> {
    return this.measure(
      `${spec.name} ${spec.protocol}`,
      spec.serverPid === undefined ? [] : [spec.serverPid],
      () => runPhase(spec),
      (result) => result.otherCpuPercent,
      spec.warmupMs + spec.durationMs,
    );
  }

  summary(): { readonly waitedS: number; readonly repeatedPhases: readonly string[] } {
    return { waitedS: round(this.waitedMs / 1000), repeatedPhases: this.repeated };
  }
}
