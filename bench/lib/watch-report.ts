/** Markdown rendering of the watch suite's results. */
import type { WatchHeapCheck, WatchResults } from "../watch.js";
import type { HeapSummary } from "./heap-snapshot.js";
import type { ListTiming } from "./lists.js";
import { cell, headlineTable, profileBody, ratioTable, reportPreamble, table } from "./report.js";
import type { FanoutPhase } from "./watch-fanout.js";

export function watchPhaseTable(phases: readonly FanoutPhase[]): string {
  return table(
    [
      "Phase",
      "conns",
      "writes/s",
      "write p99 ms",
      "events received / expected",
      "lost",
      "closed by server",
      "delay p50 ms",
      "p90 ms",
      "p99 ms",
      "max ms",
      "min ms",
      "from write sent p50 / p99 ms",
      "drain ms",
      "events/read",
      "MiB/s in",
      "server CPU %",
      "server CPU µs / event",
      "client CPU %",
      "busiest client thread %",
      "other CPU %",
      "server RSS MiB",
    ],
    phases.map((phase) => [
      phase.label,
      cell(phase.connections),
      cell(phase.writes.perSecond),
      cell(phase.writes.latency.p99Ms),
      `${cell(phase.events.received)} / ${cell(phase.events.expected)}`,
      `${cell(phase.events.lost)}${phase.events.lost > 0 ? ` (${cell(phase.events.lostPercent)} %)` : ""}`,
      cell(phase.closedByServer),
      cell(phase.delay.p50Ms),
      cell(phase.delay.p90Ms),
      cell(phase.delay.p99Ms),
      cell(phase.delay.maxMs),
      cell(phase.delay.minMs),
      `${cell(phase.delayFromIssue.p50Ms)} / ${cell(phase.delayFromIssue.p99Ms)}`,
      cell(phase.drainMs),
      cell(phase.events.perRead),
      cell(phase.receivedMBPerSecond),
      cell(phase.serverCpuPercent),
      cell(phase.events.received === 0 ? Number.NaN : ((phase.serverCpuPercent / 100) * phase.windowS * 1e6) / phase.events.received),
      cell(phase.clientCpuPercent),
      cell(phase.busiestClientThreadPercent),
      cell(phase.otherCpuPercent),
      cell(phase.serverRssMB),
    ]),
  );
}

export function listTable(timings: readonly ListTiming[]): string {
  return table(
    ["Items", "resourceVersion", "Paged", "Proto", "median ms", "runs ms", "pages", "body MiB"],
    timings.map((timing) => [
      cell(timing.items),
      timing.variant === "consistent" ? "unset (consistent)" : "0",
      timing.paged ? "limit=500" : "whole",
      timing.protocol,
      cell(timing.medianMs),
      timing.runsMs.map((ms) => cell(ms)).join(", "),
      cell(timing.pages),
      cell(timing.bodyMiB),
    ]),
  );
}

function heapCheckSection(check: WatchHeapCheck): string {
  return [
    `### Heap retained by open watches (${check.watchers} watchers)`,
    "",
    `Heap snapshots of the server (each after a full GC) right after the ${check.watchers} watches opened and after ${check.phases.join(" and ")} with the watches still open: ${cell(check.writes)} writes, ${cell(check.eventsDelivered)} events delivered in about ${cell(check.reads)} reads.`,
    "",
    table(
      ["", "live heap MiB", "Promise objects", "RSS MiB"],
      [
        ["watches opened", cell(check.before.liveHeapMiB), cell(check.before.promises), cell(check.before.rssMB)],
        ["after the writes", cell(check.after.liveHeapMiB), cell(check.after.promises), cell(check.after.rssMB)],
      ],
    ),
    "",
    `Retained per event delivered: ${cell(check.retainedBytesPerEvent)} bytes, ${cell(check.retainedPromisesPerEvent)} Promises. Largest constructors after: ${check.topAfter.map((row) => `${row.name || "(closure)"} ${cell(row.count)} (${cell(row.MiB)} MiB)`).join(", ")}.`,
  ].join("\n");
}

function heapSection(heap: HeapSummary): string {
  const sizes = (rows: HeapSummary["byType"]): string =>
    table(
      ["Name", "count", "MiB"],
      rows.map((row) => [row.name, cell(row.count), cell(row.MiB)]),
    );
  const fields = (rows: HeapSummary["cachedObjectFields"]): string =>
    table(
      ["Field", "distinct values", "MiB", "bytes per object"],
      rows.map((row) => [row.field, cell(row.distinct), cell(row.bytes / (1 << 20)), cell(row.bytesPerObject)]),
    );
  return [
    `Live JS heap ${cell(heap.liveHeapMiB)} MiB in ${cell(heap.nodes)} heap nodes (snapshot ${cell(heap.fileMiB)} MiB). ${cell(heap.cachedObjects)} cached objects (objects with key and json properties): ${cell(heap.cachedObjectBytesPerObject)} bytes each, plus ${cell(heap.containerBytesPerObject)} bytes per object in the WatchCache containers.`,
    "",
    "A cached object, by field (the value and its own backing stores; values shared between objects counted once):",
    "",
    fields(heap.cachedObjectFields),
    "",
    "WatchCache containers (their own storage; the objects they point to are counted above):",
    "",
    fields(heap.containers),
    "",
    "Live heap by node type:",
    "",
    sizes(heap.byType),
    "",
    "Live heap by constructor:",
    "",
    sizes(heap.byConstructor),
  ].join("\n");
}

export function renderWatchMarkdown(results: WatchResults): string {
  const lists = results.lists;
  const sections = [
    ...reportPreamble("watch-cache benchmark", results),
    "## Targets",
    "",
    'Ratio to target = value / target: at most 1 meets a "≤" target. The kube reference is kube-apiserver 1.28 + etcd measured in the same conditions (reference figures from the issue).',
    "",
    headlineTable(results.headline),
    "",
    "## Ratios",
    "",
    ratioTable(results.ratios),
    "",
    "## Watch fan-out",
    "",
    table(
      ["Watchers", "threads", "connections", "opened", "failed", "open s"],
      results.fleets.map((fleet) => [fleet.label, cell(fleet.workers), cell(fleet.connections), cell(fleet.opened), cell(fleet.failed), cell(fleet.openS)]),
    ),
    "",
    watchPhaseTable(results.fanout),
    "",
    ...(results.watchHeap === undefined ? [] : [heapCheckSection(results.watchHeap), ""]),
    "### Limit: the same fan-out against a bare node server",
    "",
    "`bare-watch-server.ts`: node:http2 secure server with allowHTTP1 and the same certificates, no storage and no cache; each write is answered at once and its event line written to every open watch — as a string per event per watch (what the server did before it coalesced fan-out), or batched: the lines of one event-loop turn as one Buffer shared by every watch (what the server does).",
    "",
    watchPhaseTable(results.fanoutLimits),
    "",
    "## Lists",
    "",
    lists.loads
      .map(
        (load) =>
          `- Loaded ${cell(load.created)} ConfigMaps over HTTP/2 at c=${load.concurrency}: ${cell(load.perSecond)} creates/s (${cell(load.seconds)} s).`,
      )
      .join("\n"),
    "",
    listTable(lists.timings),
    "",
    "RSS of the server during concurrent whole lists:",
    "",
    table(
      ["Round", "baseline MiB", "sampled peak MiB", "VmHWM peak MiB", "growth MiB", "samples", "lists ms", "after MiB"],
      lists.rssGrowth.map((round, index) => [
        String(index + 1),
        cell(round.baselineMB),
        cell(round.sampledPeakMB),
        cell(round.hwmPeakMB),
        cell(round.growthMB),
        cell(round.samples),
        cell(round.listsMs),
        cell(round.afterMB),
      ]),
    ),
    "",
    "Steady memory (server restarted on the loaded data dir):",
    "",
    table(
      ["Objects", "ready ms", "RSS MiB", "peak (VmHWM) MiB"],
      lists.steady.map((entry) => [cell(entry.objects), cell(entry.readyMs), cell(entry.rssMB), cell(entry.hwmMB)]),
    ),
    "",
  ];
  if (lists.heap !== undefined) sections.push("## Heap of the server with the large set cached", "", heapSection(lists.heap), "");
  const profiles = Object.entries(results.profiles);
  if (profiles.length > 0) {
    sections.push("## CPU profiles of the server (node --cpu-prof)", "");
    for (const [name, profiled] of profiles) sections.push(`### ${name}: ${profiled.what}`, "", profileBody(profiled.profile), "");
    if (results.profiledFanoutPhases.length > 0)
      sections.push("The profiled fan-out phases (rates are a little lower under the profiler):", "", watchPhaseTable(results.profiledFanoutPhases), "");
  }
  const parts = Object.entries(results.sectionSeconds)
    .map(([name, seconds]) => `${name} ${cell(seconds)} s`)
    .join(", ");
  sections.push("## Notes", "", ...results.notes.map((note) => `- ${note}`), "", `Total bench time: ${cell(results.totalBenchSeconds)} s (${parts}).`, "");
  return sections.join("\n");
}
