/**
 * The watch tail of issue #21, alone (`npm run bench -- --suite watch-tail`, a few minutes): the
 * watch suite's fan-out with 1,000 watchers only, at 20 and 200 writes/s, over a TLS connection
 * per watch and as HTTP/2 streams, the watchers in child processes of the bench; the same
 * fan-out against the bare node server (batched Buffer) in the same run as the limit; and the
 * 1,000 @ 200 phase again on a server under `node --cpu-prof`. Reports the delay p99 against the
 * issue's targets, events lost, and the server's CPU per event delivered (the figure that a
 * loaded machine disturbs least). Writes `<date>-watch-tail.{json,md}`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { machineEnvironment } from "./lib/environment.js";
import { makeTempDir } from "./lib/processes.js";
import { QUIET_THRESHOLD_PERCENT, QuietGate } from "./lib/quiet.js";
import {
  cell,
  headlineRow,
  headlineTable,
  profileBody,
  ratioTable,
  reportPreamble,
  type HeadlineRow,
  type RatioRow,
  type ResultsHeader,
} from "./lib/report.js";
import { REPO_ROOT } from "./lib/server.js";
import { round } from "./lib/stats.js";
import type { FanoutPhase } from "./lib/watch-fanout.js";
import { watchPhaseTable } from "./lib/watch-report.js";
import type { WatchProtocol } from "./lib/watch-types.js";
import {
  findPhase,
  measureFanout,
  measureFanoutLimit,
  profileFanout,
  settingsFor,
  TARGETS,
  type FleetRecord,
  type WatchSuiteOptions,
  type WindowProfile,
} from "./watch.js";

const KUBE_P99_MS = { 20: 157, 200: 3900 } as const;

export interface WatchTailResults extends ResultsHeader {
  readonly name: "watch-tail";
  readonly headline: readonly HeadlineRow[];
  readonly ratios: readonly RatioRow[];
  readonly fleets: readonly FleetRecord[];
  readonly fanout: readonly FanoutPhase[];
  readonly fanoutLimits: readonly FanoutPhase[];
  readonly profiles: Readonly<Record<string, WindowProfile>>;
  readonly notes: readonly string[];
  readonly totalBenchSeconds: number;
}

const log = (text: string): void => void process.stdout.write(`${text}\n`);

/** Whether other processes took CPU during the phases: then the delays are not evidence. */
function loadNote(phases: readonly FanoutPhase[]): string {
  const busy = phases.filter((phase) => phase.otherCpuPercent >= QUIET_THRESHOLD_PERCENT);
  return busy.length === 0
    ? `No other process used ${QUIET_THRESHOLD_PERCENT} % of a core or more during any phase.`
    : `TAKEN UNDER LOAD: other processes used ${Math.min(...busy.map((phase) => phase.otherCpuPercent))}–${Math.max(...busy.map((phase) => phase.otherCpuPercent))} % of a core during ${busy.length} of ${phases.length} phases; delays and writes/s are overstated (rerun on a quiet machine), CPU per event much less so.`;
}

/** Server CPU µs per event delivered in a phase. */
function cpuPerEventUs(phase: FanoutPhase | undefined): number | undefined {
  return phase === undefined || phase.events.received === 0 ? undefined : ((phase.serverCpuPercent / 100) * phase.windowS * 1e6) / phase.events.received;
}

/** The bench's CPU (the writer and the watcher processes) µs per event delivered in a phase. */
function clientCpuPerEventUs(phase: FanoutPhase | undefined): number | undefined {
  return phase === undefined || phase.events.received === 0 ? undefined : ((phase.clientCpuPercent / 100) * phase.windowS * 1e6) / phase.events.received;
}

/**
 * The CPU bound on a fan-out's p99 when the watchers share the server's machine (each watch on its
 * own connection): an event reaches a watcher only after the server has written it and the
 * watcher's process has read it, so the `watchers` writes of one flush — `perRead` events each,
 * the events a watcher gets per read — take at least 0.99 × watchers × perRead × (server + bench
 * CPU per event) ÷ cores of wall time from the flush's start for 99 % of them to arrive, however
 * the work is spread over threads. The server's share includes its request handling and the
 * bench's the writer, so this slightly overstates the fan-out's own cost; the flush starts after
 * the write's ack is sent, so it is comparable with the delay from the ack.
 */
function cpuBoundP99Ms(phase: FanoutPhase | undefined, cores: number): number | undefined {
  const server = cpuPerEventUs(phase);
  const bench = clientCpuPerEventUs(phase);
  if (phase === undefined || server === undefined || bench === undefined) return undefined;
  return (0.99 * phase.watchers * Math.max(1, phase.events.perRead) * (server + bench)) / cores / 1000;
}

export async function runWatchTailSuite(options: WatchSuiteOptions): Promise<void> {
  const began = performance.now();
  const base = settingsFor(options);
  const watchers = options.quick ? 100 : 1000;
  const settings = { ...base, watcherCounts: [watchers], h2Watchers: watchers, heapSnapshot: false };
  const root = makeTempDir("orch-bench-watch-tail-");
  log(`watch tail benchmark (${settings.quick ? "quick" : "full"}): ${watchers} watchers in ${settings.watchWorkers} child processes, scratch dir ${root}`);
  const gate = new QuietGate(settings.quietWaitMs);
  const backgroundAtStart = await gate.wait();
  log(`other processes' CPU before the run: ${backgroundAtStart} % of a core`);
  const fanout = await measureFanout(root, settings, gate);
  log("limit: the same fan-out against a bare node server (batched Buffer)");
  const limit = await measureFanoutLimit(root, fanout.pkiDir, "batch", settings, gate, "all");
  const profiles: Record<string, WindowProfile> = {};
  if (settings.profile) {
    log("profile: 1,000 @ 200 (TLS connection per watch) on a server under node --cpu-prof");
    profiles["watch fan-out (TLS connection per watch)"] = (await profileFanout(root, fanout.pkiDir, "h1", settings, gate)).profile;
  }

  const [low, high] = [settings.rates[0] ?? 20, settings.rates[settings.rates.length - 1] ?? 200];
  const cores = availableParallelism();
  const full = !settings.quick;
  const headline: HeadlineRow[] = [];
  const ratios: RatioRow[] = [];
  const ratio = (label: string, numerator: number | undefined, denominator: number | undefined): void => {
    if (numerator === undefined || denominator === undefined || !Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) return;
    ratios.push({ ratio: label, numerator: round(numerator), denominator: round(denominator), value: round(numerator / denominator) });
  };
  const bareAt = (rate: number): FanoutPhase | undefined => limit.phases.find((phase) => phase.targetWritesPerSecond === rate);
  for (const protocol of ["h1", "h2"] as const satisfies readonly WatchProtocol[]) {
    for (const rate of [low, high]) {
      const phase = findPhase(fanout.phases, watchers, rate, protocol);
      if (phase === undefined) continue;
      const how = `${watchers.toLocaleString("en-US")} watchers @ ${rate} writes/s (${protocol === "h1" ? "1 TLS conn each" : "h2 streams"})`;
      const target = full ? { value: rate === low ? TARGETS.watchP99Ms1000At20 : TARGETS.watchP99Ms1000At200, direction: "max" as const } : undefined;
      const kube = full && protocol === "h1" ? (rate === low ? KUBE_P99_MS[20] : KUBE_P99_MS[200]) : undefined;
      headline.push(headlineRow(`Watch delay p99 from the write's ack, ${how}`, phase.delay.p99Ms, "ms", target, kube));
      headline.push(headlineRow(`Watch delay p99 from the write being sent, ${how}`, phase.delayFromIssue.p99Ms, "ms", target));
      headline.push(headlineRow(`Events lost, ${how}`, phase.events.lost, "events", { value: 0, direction: "max" }));
      headline.push(
        headlineRow(`Writes/s achieved, ${how}`, phase.writes.perSecond, "writes/s", full ? { value: round(rate * 0.97), direction: "min" } : undefined),
      );
      const perEvent = cpuPerEventUs(phase);
      if (perEvent !== undefined) headline.push(headlineRow(`Server CPU per event delivered, ${how}`, perEvent, "µs"));
      const benchPerEvent = clientCpuPerEventUs(phase);
      if (benchPerEvent !== undefined)
        headline.push(headlineRow(`The bench's CPU (writer + watcher processes) per event delivered, ${how}`, benchPerEvent, "µs"));
      const bound = protocol === "h1" ? cpuBoundP99Ms(phase, cores) : undefined;
      if (bound !== undefined) {
        headline.push(headlineRow(`CPU bound on the p99 from the ack, ${cores} cores shared with the watchers (see notes), ${how}`, bound, "ms", target));
        ratio(`delay p99 from the write's ack / CPU bound, ${how}`, phase.delay.p99Ms, bound);
      }
      if (protocol === "h1") {
        const bare = bareAt(rate);
        ratio(`server CPU per event / bare node (batched Buffer), ${how}`, perEvent, cpuPerEventUs(bare));
        // From the ack only at the low rate: at the high one both p99s are near zero or negative (events beat the ack).
        if (rate === low) ratio(`delay p99 from the write's ack / bare node (batched Buffer), ${how}`, phase.delay.p99Ms, bare?.delay.p99Ms);
        ratio(`delay p99 from write sent / bare node (batched Buffer), ${how}`, phase.delayFromIssue.p99Ms, bare?.delayFromIssue.p99Ms);
      }
    }
  }

  const date = new Date().toISOString().slice(0, 10);
  const results: WatchTailResults = {
    name: "watch-tail",
    date,
    mode: settings.quick ? "quick" : "full",
    environment: {
      ...machineEnvironment(REPO_ROOT),
      watchers: `${settings.watchWorkers} child processes of the bench (watchers spread evenly), same machine as the server`,
      "other processes' CPU at start (% of a core)": backgroundAtStart,
      "waited for quiet (s)": gate.summary().waitedS,
      "phases repeated because other processes took CPU": gate.summary().repeatedPhases.join(", ") || "none",
    },
    settings: {
      watchers,
      writeRates: settings.rates.join(", "),
      phaseSeconds: settings.phaseMs / 1000,
      watcherProcesses: settings.watchWorkers,
      storageBackend: "sqlite",
    },
    targets: {
      watch: `1,000 watchers: p99 ≤ ${TARGETS.watchP99Ms1000At20} ms @ 20 writes/s; p99 ≤ ${TARGETS.watchP99Ms1000At200} ms and 0 lost @ 200 writes/s`,
    },
    kubeReference: { system: "kube-apiserver 1.28 + etcd (issue #21)", "p99 @ 20 (ms)": KUBE_P99_MS[20], "p99 @ 200 (ms)": KUBE_P99_MS[200] },
    headline,
    ratios,
    fleets: [...fanout.fleets, ...limit.fleets],
    fanout: fanout.phases,
    fanoutLimits: limit.phases,
    profiles,
    notes: [
      loadNote([...fanout.phases, ...limit.phases]),
      "Delay = arrival at the watcher (CLOCK_MONOTONIC, per read) − the writer receiving the write's 201/200 (or sending the write); the watcher processes and the writer read the same machine clock.",
      "Lost = acknowledged writes × watches open at the phase start − events received with a matching resourceVersion, after waiting for stragglers.",
      "Other processes' CPU is in the 'other CPU %' column: on a loaded machine the delays are overstated; server CPU per event is the figure load disturbs least.",
      `CPU bound (one TLS connection per watch) = 0.99 × watchers × events per read × (server CPU + the bench's CPU per event delivered) ÷ ${cores} cores: the watcher processes run on the server's machine, so delivering an event costs both, and 99 % of one flush's deliveries need that much CPU time after the flush starts whichever threads do it (moving the server's TLS writes to worker threads cannot lower it while the watchers already take the other core). The server's share includes its request handling and the bench's the writer, so it slightly overstates the fan-out's own cost. A p99 near it is machine-bound; reaching a target below it needs less CPU per event on either side. With other processes busy it is a lower bound only (they take their share of the cores during the fan-outs).`,
    ],
    totalBenchSeconds: round((performance.now() - began) / 1000),
  };
  mkdirSync(settings.outDir, { recursive: true });
  const file = join(settings.outDir, `${date}-watch-tail${settings.quick ? "-quick" : ""}`);
  writeFileSync(`${file}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${file}.md`, renderWatchTailMarkdown(results));
  log("");
  log(watchPhaseTable(results.fanout));
  log(`wrote ${file}.json and ${file}.md (${results.totalBenchSeconds} s)`);
}

function renderWatchTailMarkdown(results: WatchTailResults): string {
  return [
    ...reportPreamble("watch tail benchmark (issue #21)", results),
    "## Targets",
    "",
    headlineTable(results.headline),
    "",
    "## Ratios to the bare node server in the same run",
    "",
    ratioTable(results.ratios),
    "",
    "## Fan-out phases",
    "",
    results.fleets
      .map(
        (fleet) =>
          `- ${fleet.label}: ${cell(fleet.opened)} opened (${cell(fleet.failed)} failed) in ${cell(fleet.openS)} s, ${cell(fleet.workers)} watcher processes`,
      )
      .join("\n"),
    "",
    watchPhaseTable(results.fanout),
    "",
    "### Limit: bare node server, batched Buffer",
    "",
    watchPhaseTable(results.fanoutLimits),
    "",
    ...Object.entries(results.profiles).flatMap(([name, entry]) => [`## Profile: ${name}`, "", entry.what, "", profileBody(entry.profile), ""]),
    "## Notes",
    "",
    results.notes.map((note) => `- ${note}`).join("\n"),
    "",
  ].join("\n");
}
