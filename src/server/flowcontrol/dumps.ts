import type { FlowControl } from "./flow-control.js";

/** Rows as kube's dumps print them: comma-separated cells, padded to aligned columns. */
function table(rows: readonly (readonly (string | number | boolean)[])[]): string {
  const cells = rows.map((row) => row.map((cell, index) => (index < row.length - 1 ? `${String(cell)},` : String(cell))));
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, index) => void (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return `${cells.map((row) => row.map((cell, index) => (index < row.length - 1 ? cell.padEnd((widths[index] ?? 0) + 1) : cell)).join("")).join("\n")}\n`;
}

/** `/debug/api_priority_and_fairness/dump_priority_levels`: one row per level. */
export function dumpPriorityLevels(flowControl: FlowControl): string {
  const rows: (string | number | boolean)[][] = [
    [
      "PriorityLevelName",
      "ActiveQueues",
      "IsIdle",
      "IsQuiescing",
      "WaitingRequests",
      "ExecutingRequests",
      "DispatchedRequests",
      "RejectedRequests",
      "TimedoutRequests",
      "CancelledRequests",
    ],
  ];
  for (const level of flowControl.priorityLevels()) {
    const set = level.queueSet;
    if (set === undefined) {
      rows.push([level.name, "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>", "<none>"]);
      continue;
    }
    const active = set.queueStates().filter((queue) => queue.waiting > 0 || queue.executing > 0).length;
    const { dispatched, rejected, timedOut, cancelled } = set.counters;
    rows.push([
      level.name,
      active,
      set.executing === 0 && set.waitingCount === 0,
      false,
      set.waitingCount,
      set.executing,
      dispatched,
      rejected,
      timedOut,
      cancelled,
    ]);
  }
  return table(rows);
}

/** `/debug/api_priority_and_fairness/dump_queues`: one row per queue of each Limited level. */
export function dumpQueues(flowControl: FlowControl): string {
  const rows: (string | number)[][] = [
    ["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"],
  ];
  for (const level of flowControl.priorityLevels()) {
    level.queueSet?.queueStates().forEach((queue, index) => {
      rows.push([
        level.name,
        index,
        queue.waiting,
        queue.executing,
        queue.executing,
        `${queue.virtualStart.toFixed(8)}ss`,
        queue.waiting,
        queue.waiting,
        `${queue.waiting}.00000000ss`,
      ]);
    });
  }
  return table(rows);
}

/** `/debug/api_priority_and_fairness/dump_requests`: the waiting requests; `includeRequestDetails=1` adds who and what. */
export function dumpRequests(flowControl: FlowControl, includeDetails: boolean): string {
  const header = [
    "PriorityLevelName",
    "FlowSchemaName",
    "QueueIndex",
    "RequestIndexInQueue",
    "FlowDistingsher",
    "ArriveTime",
    "InitialSeats",
    "FinalSeats",
    "AdditionalLatency",
    "StartTime",
  ];
  const rows: (string | number)[][] = [
    includeDetails ? [...header, "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource"] : header,
  ];
  for (const level of flowControl.priorityLevels()) {
    const positions = new Map<number, number>();
    for (const request of level.queueSet?.waitingRequests() ?? []) {
      const position = positions.get(request.queue) ?? 0;
      positions.set(request.queue, position + 1);
      const row: (string | number)[] = [
        level.name,
        request.describe.flowSchema,
        request.queue,
        position,
        request.flow,
        new Date(request.arrived).toISOString(),
        1,
        1,
        "0s",
        "0001-01-01T00:00:00Z",
      ];
      if (includeDetails) {
        const info = request.describe.info;
        if (info.kind === "resource") {
          const path = info.group === "" ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
          row.push(request.describe.user, info.verb, path, info.namespace, info.name, info.version, info.resource, info.subresource);
        } else row.push(request.describe.user, info.verb, info.path, "", "", "", "", "");
      }
      rows.push(row);
    }
  }
  return table(rows);
}
