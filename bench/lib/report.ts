/** The results document and its human-readable rendering (Markdown tables). */
import type { PhaseResult } from "./load.js";
import type { ProfileSummary } from "./profile.js";
import type { SqliteLimits } from "./sqlite-raw.js";
import { round } from "./stats.js";

export interface StartupResults {
  /** Fresh data dir: certificates are generated. */
  readonly firstStartReadyMs: readonly number[];
  readonly warmStartReadyMs: readonly number[];
  readonly firstStartReadyMsMedian: number;
  readonly warmStartReadyMsMedian: number;
  /** What the CLI printed as "ready in N ms" (in-process, excludes node's own boot). */
  readonly warmStartSelfReportedMs: readonly (number | undefined)[];
  readonly idleRssMB: number;
  readonly idleHwmMB: number;
  readonly pollIntervalMs: number;
}

export interface LimitResults {
  readonly bareHttpsH1: PhaseResult;
  readonly bareHttp2H2?: PhaseResult;
  readonly sqlite: SqliteLimits;
}

export interface ProfiledPhase {
  readonly phase: PhaseResult;
  readonly profile: ProfileSummary;
}

export type Direction = "max" | "min";

export interface HeadlineRow {
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
  /** "max": value must stay at or below the target; "min": at or above. */
  readonly direction?: Direction;
  readonly target?: number;
  readonly ratioToTarget?: number;
  readonly meets?: boolean;
  readonly kubeReference?: number;
  readonly ratioToKube?: number;
}

export interface RatioRow {
  readonly ratio: string;
  readonly numerator: number;
  readonly denominator: number;
  readonly value: number;
}

/** What every suite's results file starts with: when and where it ran, and the target table. */
export interface ResultsHeader {
  readonly date: string;
  readonly mode: "full" | "quick";
  readonly environment: Readonly<Record<string, string | number>>;
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  readonly targets: Readonly<Record<string, string>>;
  readonly kubeReference: Readonly<Record<string, string | number>>;
  readonly headline: readonly HeadlineRow[];
  readonly ratios: readonly RatioRow[];
}

/** The Markdown report's title and environment list, the same for every suite. */
export function reportPreamble(title: string, results: ResultsHeader): string[] {
  return [
    `# orch-apiserver ${title} — ${results.date}${results.mode === "quick" ? " (quick smoke run)" : ""}`,
    "",
    Object.entries(results.environment)
      .map(([name, value]) => `- ${name}: ${value}`)
      .join("\n"),
    "",
  ];
}

export interface BenchResults extends ResultsHeader {
  readonly name: "foundation";
  readonly startup: StartupResults;
  readonly phases: readonly PhaseResult[];
  readonly memoryAfterLoad: { readonly rssMB: number; readonly hwmMB: number };
  readonly limits: LimitResults;
  readonly profiles?: Readonly<Record<string, ProfiledPhase>>;
  readonly notes: readonly string[];
  readonly totalBenchSeconds: number;
}

export function headlineRow(
  figure: string,
  value: number,
  unit: string,
  target?: { readonly value: number; readonly direction: Direction },
  kube?: number,
): HeadlineRow {
  const row: HeadlineRow = { figure, value: round(value), unit };
  const withTarget =
    target === undefined
      ? row
      : {
          ...row,
          direction: target.direction,
          target: target.value,
          ratioToTarget: round(value / target.value),
          meets: target.direction === "max" ? value <= target.value : value >= target.value,
        };
  return kube === undefined ? withTarget : { ...withTarget, kubeReference: kube, ratioToKube: round(value / kube) };
}

export function cell(value: number | string | undefined): string {
  if (value === undefined) return "—";
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return "—";
  return Math.abs(value) >= 1000 ? Math.round(value).toLocaleString("en-US") : String(round(value));
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => (row[index] ?? "").length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((text, index) => text.padEnd(widths[index] ?? 0)).join(" | ")} |`;
  return [line(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export function headlineTable(rows: readonly HeadlineRow[]): string {
  return table(
    ["Figure", "Value", "Target", "Ratio to target", "Meets", "kube reference", "Ratio to kube"],
    rows.map((row) => [
      row.figure,
      `${cell(row.value)} ${row.unit}`,
      row.target === undefined ? "—" : `${row.direction === "max" ? "≤" : "≥"} ${cell(row.target)} ${row.unit}`,
      cell(row.ratioToTarget),
      row.meets === undefined ? "—" : row.meets ? "yes" : "NO",
      row.kubeReference === undefined ? "—" : `${cell(row.kubeReference)} ${row.unit}`,
      cell(row.ratioToKube),
    ]),
  );
}

export function phaseTable(phases: readonly PhaseResult[]): string {
  return table(
    [
      "Phase",
      "Proto",
      "c",
      "req/s",
      "p50 ms",
      "p90 ms",
      "p99 ms",
      "max ms",
      "requests",
      "failures",
      "MiB/s in",
      "server CPU %",
      "generator CPU %",
      "other CPU %",
    ],
    phases.map((phase) => [
      phase.name,
      phase.protocol,
      String(phase.concurrency),
      cell(phase.perSecond),
      cell(phase.latency.p50Ms),
      cell(phase.latency.p90Ms),
      cell(phase.latency.p99Ms),
      cell(phase.latency.maxMs),
      cell(phase.requests),
      String(phase.failures),
      cell(phase.receivedMBPerSecond),
      cell(phase.serverCpuPercent),
      cell(phase.generatorCpuPercent),
      cell(phase.otherCpuPercent),
    ]),
  );
}

export function ratioTable(rows: readonly RatioRow[]): string {
  return table(
    ["Ratio", "Numerator", "Denominator", "Value"],
    rows.map((row) => [row.ratio, cell(row.numerator), cell(row.denominator), cell(row.value)]),
  );
}

function profileTables(name: string, profiled: ProfiledPhase): string {
  return [`### ${name}: ${cell(profiled.phase.perSecond)} req/s under the profiler`, "", profileBody(profiled.profile)].join("\n");
}

/** The tables of one analysed .cpuprofile: origins, top self time overall and in src/, top total, per file. */
export function profileBody(profile: ProfileSummary): string {
  const origins = Object.entries(profile.byOriginPercent)
    .sort((a, b) => b[1] - a[1])
    .map(([origin, percent]) => `${origin} ${cell(percent)} %`)
    .join(", ");
  const entries = (list: ProfileSummary["topSelf"], limit: number): string =>
    table(
      ["Function", "Location", "self ms", "self %", "total %"],
      list
        .slice(0, limit)
        .map((entry) => [entry.function, entry.location || "(native)", cell(entry.selfMs), cell(entry.selfPercent), cell(entry.totalPercent)]),
    );
  return [
    `Busy ${cell(profile.busyMs)} ms of ${cell(profile.profiledMs)} ms profiled; GC ${cell(profile.gcPercent)} %. Busy time by origin: ${origins}.`,
    "",
    "Top self time, everything:",
    "",
    entries(profile.topSelf, 12),
    "",
    "Top self time in src/:",
    "",
    entries(profile.topSrcSelf, 12),
    "",
    "Top total (inclusive) time in src/:",
    "",
    entries(profile.topSrcTotal, 10),
    "",
    "Self time by src/ file:",
    "",
    table(
      ["File", "self ms", "self %"],
      profile.srcFilesSelf.map((file) => [file.file, cell(file.selfMs), cell(file.selfPercent)]),
    ),
  ].join("\n");
}

function sqliteLine(sqlite: SqliteLimits): string {
  const rounds = (values: readonly number[]): string => values.map((value) => cell(value)).join(", ");
  return (
    `Raw SQLite (WAL, synchronous=FULL, ~300-byte values), medians of ${sqlite.singleRounds.length} alternating rounds: ` +
    `${cell(sqlite.singleInsertsPerSecond)} single-insert transactions/s (rounds ${rounds(sqlite.singleRounds)}; commit p50 ${cell(sqlite.singleCommitP50Ms)} ms, ` +
    `mean ${cell(sqlite.singleCommitMeanMs)} ms, p99 ${cell(sqlite.singleCommitP99Ms)} ms); ${cell(sqlite.batched16InsertsPerSecond)} inserts/s batched 16 per transaction ` +
    `(rounds ${rounds(sqlite.batched16Rounds)}; ${cell(sqlite.batched16CommitsPerSecond)} commits/s). fsync latency on a VM disk changes from second to second (compare the rounds and the commit p99), and durable-write figures move with it.`
  );
}

export function renderMarkdown(results: BenchResults): string {
  const startup = results.startup;
  const sections = [
    ...reportPreamble("foundation benchmark", results),
    "## Targets",
    "",
    'Ratio to target = value / target: at most 1 meets a "≤" target, at least 1 meets a "≥" target. The kube reference is kube-apiserver 1.28 + etcd measured in the same conditions (reference figures from the issue).',
    "",
    headlineTable(results.headline),
    "",
    "## Ratios to the limits measured in the same run",
    "",
    ratioTable(results.ratios),
    "",
    sqliteLine(results.limits.sqlite),
    "",
    "## Every load phase",
    "",
    phaseTable([...results.phases, results.limits.bareHttpsH1, ...(results.limits.bareHttp2H2 === undefined ? [] : [results.limits.bareHttp2H2])]),
    "",
    `Memory after the load: RSS ${cell(results.memoryAfterLoad.rssMB)} MiB (peak ${cell(results.memoryAfterLoad.hwmMB)} MiB).`,
    "",
    "## Startup",
    "",
    `- First start (fresh data dir, certificate generation), spawn → first /readyz 200: ${startup.firstStartReadyMs.map((ms) => `${cell(ms)} ms`).join(", ")} (median ${cell(startup.firstStartReadyMsMedian)} ms)`,
    `- Warm start (same data dir): ${startup.warmStartReadyMs.map((ms) => `${cell(ms)} ms`).join(", ")} (median ${cell(startup.warmStartReadyMsMedian)} ms); the CLI's own "ready in" figures: ${startup.warmStartSelfReportedMs.map((ms) => (ms === undefined ? "—" : `${ms} ms`)).join(", ")}`,
    `- Idle RSS 2 s after ready: ${cell(startup.idleRssMB)} MiB (peak ${cell(startup.idleHwmMB)} MiB); /readyz polled every ${startup.pollIntervalMs} ms`,
    "",
  ];
  if (results.profiles !== undefined) {
    sections.push("## CPU profiles of the server (node --cpu-prof)", "");
    for (const [name, profiled] of Object.entries(results.profiles)) sections.push(profileTables(name, profiled), "");
  }
  sections.push("## Notes", "", ...results.notes.map((note) => `- ${note}`), "", `Total bench time: ${cell(results.totalBenchSeconds)} s.`, "");
  return sections.join("\n");
}
