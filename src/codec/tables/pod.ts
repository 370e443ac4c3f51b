import type { ApiObject } from "../../api/object.js";
import { humanDuration } from "../../util/human-duration.js";
import { text, wide, AGE, NAME, type ColumnSpec } from "./column.js";
import { conditionTrue, list, num, present, record, records, str } from "./format.js";

/** A sidecar: an init container that keeps running (`restartPolicy: Always`). */
function isSidecar(container: Record<string, unknown> | undefined): boolean {
  return container?.["restartPolicy"] === "Always";
}

function finishedAt(status: Record<string, unknown>): number {
  const finished = str(record(record(status["lastState"])["terminated"])["finishedAt"]);
  const time = finished === "" ? Number.NaN : Date.parse(finished);
  return Number.isNaN(time) ? 0 : time;
}

interface PodSummary {
  readonly ready: number;
  readonly total: number;
  readonly reason: string;
  readonly restarts: number;
  /** When the most recently restarted container last terminated; 0 when unknown. */
  readonly lastRestart: number;
}

/**
 * The pod's one-word status, readiness and restarts as `kubectl get pods` shows them: init
 * container progress (`Init:1/2`, `Init:CrashLoopBackOff`), else the last container's waiting or
 * terminated reason, else the phase; `Terminating` once deletion started on a running pod.
 */
function summarizePod(pod: ApiObject): PodSummary {
  const spec = record(pod["spec"]);
  const status = record(pod["status"]);
  // kube writes Pending on create; a pod stored without a phase has not been scheduled either.
  const phase = str(status["phase"]) || "Pending";
  const initContainers = records(spec["initContainers"]);
  const initByName = new Map(initContainers.map((container) => [str(container["name"]), container]));
  const total = list(spec["containers"]).length + initContainers.filter(isSidecar).length;
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;
  let reason = str(status["reason"]) || phase;
  if (records(status["conditions"]).some((entry) => entry["type"] === "PodScheduled" && entry["reason"] === "SchedulingGated")) reason = "SchedulingGated";

  let initializing = false;
  const initStatuses = records(status["initContainerStatuses"]);
  for (const [index, container] of initStatuses.entries()) {
    const sidecar = isSidecar(initByName.get(str(container["name"])));
    restarts += num(container["restartCount"]);
    lastRestart = Math.max(lastRestart, finishedAt(container));
    if (sidecar) {
      sidecarRestarts += num(container["restartCount"]);
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(container));
    }
    const state = record(container["state"]);
    const terminated = present(state["terminated"]);
    const waitingReason = str(record(state["waiting"])["reason"]);
    if (terminated !== undefined && num(terminated["exitCode"]) === 0) continue;
    if (sidecar && container["started"] === true) {
      if (container["ready"] === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      const signal = num(terminated["signal"]);
      reason =
        str(terminated["reason"]) !== ""
          ? `Init:${str(terminated["reason"])}`
          : signal !== 0
            ? `Init:Signal:${signal}`
            : `Init:ExitCode:${num(terminated["exitCode"])}`;
    } else if (waitingReason !== "" && waitingReason !== "PodInitializing") {
      reason = `Init:${waitingReason}`;
    } else {
      reason = `Init:${index}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status["conditions"], "Initialized")) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let running = false;
    // Walked backwards as kube's printer does: the first container with a reason decides.
    for (const container of records(status["containerStatuses"]).reverse()) {
      restarts += num(container["restartCount"]);
      lastRestart = Math.max(lastRestart, finishedAt(container));
      const state = record(container["state"]);
      const waiting = str(record(state["waiting"])["reason"]);
      const terminated = present(state["terminated"]);
      if (waiting !== "") reason = waiting;
      else if (terminated !== undefined && str(terminated["reason"]) !== "") reason = str(terminated["reason"]);
      else if (terminated !== undefined)
        reason = num(terminated["signal"]) !== 0 ? `Signal:${num(terminated["signal"])}` : `ExitCode:${num(terminated["exitCode"])}`;
      else if (container["ready"] === true && present(state["running"]) !== undefined) {
        running = true;
        ready++;
      }
    }
    if (reason === "Completed" && running) reason = conditionTrue(status["conditions"], "Ready") ? "Running" : "NotReady";
  }

  if (pod.metadata.deletionTimestamp !== undefined && str(status["reason"]) === "NodeLost") reason = "Unknown";
  else if (pod.metadata.deletionTimestamp !== undefined && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";
  return { ready, total, reason, restarts, lastRestart };
}

// Three cells of a row read the same summary; objects are not mutated while a Table is rendered.
const summaries = new WeakMap<ApiObject, PodSummary>();

function summary(pod: ApiObject): PodSummary {
  let known = summaries.get(pod);
  if (known === undefined) {
    known = summarizePod(pod);
    summaries.set(pod, known);
  }
  return known;
}

function restartsCell(pod: ApiObject, now: number): string {
  const { restarts, lastRestart } = summary(pod);
  return restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
}

function podIP(pod: ApiObject): string {
  const status = record(pod["status"]);
  const first = records(status["podIPs"])[0];
  return str(first?.["ip"]) || str(status["podIP"]) || "<none>";
}

function readinessGates(pod: ApiObject): string {
  const gates = records(record(pod["spec"])["readinessGates"]);
  if (gates.length === 0) return "<none>";
  const conditions = record(pod["status"])["conditions"];
  const passed = gates.filter((gate) => conditionTrue(conditions, str(gate["conditionType"]))).length;
  return `${passed}/${gates.length}`;
}

export const POD_COLUMNS: readonly ColumnSpec[] = [
  NAME,
  text("Ready", "Ready containers out of all long-running ones.", (pod) => {
    const { ready, total } = summary(pod);
    return `${ready}/${total}`;
  }),
  text("Status", "The pod's state in one word, from its containers and phase.", (pod) => summary(pod).reason),
  text("Restarts", "Container restarts, and how long ago the last one was.", (pod, context) => restartsCell(pod, context.now)),
  AGE,
  wide(text("IP", "The pod's first IP address.", podIP)),
  wide(text("Node", "The node the pod is bound to.", (pod) => str(record(pod["spec"])["nodeName"]) || "<none>")),
  wide(text("Nominated Node", "The node the scheduler nominated after preemption.", (pod) => str(record(pod["status"])["nominatedNodeName"]) || "<none>")),
  wide(text("Readiness Gates", "Readiness gates whose condition is True, out of all.", readinessGates)),
];
