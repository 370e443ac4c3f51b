import type { Profile } from "../../api/profile.js";
import { addResponseHeader, requireInfo, requireUser, type ApiResponse, type Filter, type RequestContext } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";
import { DroppedRequests } from "../flowcontrol/dropped-requests.js";
import type { Classification, FlowControl } from "../flowcontrol/flow-control.js";
import type { FlowControlMetrics, FlowSeriesMetrics } from "../flowcontrol/flowcontrol-metrics.js";
import type { Admission, RejectReason } from "../flowcontrol/queue-set.js";
import type { WatchTracker } from "../flowcontrol/watch-tracker.js";
import { countedResource, estimateMutating, estimateSeats, NO_MUTATING_WORK, readsObjectCount } from "../flowcontrol/work-estimate.js";
import { isLongRunning } from "../../request/long-running.js";
import { onStreamEnd } from "../../request/stream-end.js";

export interface PriorityAndFairnessOptions {
  readonly flowControl: FlowControl;
  readonly metrics: FlowControlMetrics;
  readonly profile: Profile;
  /** How long a request may wait in its queue before 429 (kube: a quarter of --request-timeout). */
  readonly waitLimitMs: number;
  /** Stored objects of a resource (`<plural>[.<group>]`), for the seats a list takes; undefined when not counted. */
  readonly objectCount?: (resource: string) => number | undefined;
  /** Open watches by what they watch: a mutating request's estimate counts those it notifies. */
  readonly watches?: WatchTracker;
  /** Each level's recent rejections, which set the 429's Retry-After (default: one tracker of this filter's own). */
  readonly droppedRequests?: DroppedRequests;
}

/**
 * kube's APF filter lets long-running requests past unclassified, but watches: those it holds a
 * seat for while they start (`isLongRunning`, the check the max-in-flight limiter and the request
 * timeout share).
 */
function bypassesFlowControl(info: RequestInfo): boolean {
  return isLongRunning(info) && !(info.kind === "resource" && info.verb === "watch");
}

/**
 * kube's 429 from flow control: not a Status but Go's http.Error text (so clients say "the server
 * has received too many requests and has asked us to try again later"), with the level's
 * Retry-After in seconds (`DroppedRequests`).
 */
export function tooManyRequests(headers: Readonly<Record<string, string>>, retryAfterSeconds: number): ApiResponse {
  return {
    status: 429,
    headers: { ...headers, "Retry-After": String(retryAfterSeconds), "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
    body: "Too many requests, please try again later.\n",
  };
}

/**
 * API Priority and Fairness (after impersonation, before authorization, as in kube's chain):
 * classifies the request by the first matching FlowSchema, sends the FlowSchema's and priority
 * level's UIDs as `X-<profile>-PF-*-UID` headers on every answer (the request's `responseHeaders`), and holds a seat of the level
 * for the request's execution, waiting in the flow's shuffle-sharded queue when none is free.
 * A full queue, a Reject level without a free seat, or a wait past `waitLimitMs` is 429 with
 * `Retry-After` (1 s, growing while the level keeps rejecting: `DroppedRequests`). Exempt levels never wait. A watch holds its seat only until its response starts
 * (its set-up and initial state), as kube accounts watches; the other long-running requests (exec,
 * attach, port-forward, proxy, every log request, `/debug/pprof/`) are not flow-controlled. A list takes the seats of kube's work estimate
 * (flowcontrol/work-estimate.ts: one per 100 objects it processes, 1 to 10); a create, update,
 * patch or delete whose change at least 10 open watches will receive holds one seat per 10 of
 * them (at most 10) and keeps them for 5 ms per seat of work after it executed.
 */
export function priorityAndFairnessFilter(options: PriorityAndFairnessOptions): Filter {
  const { flowControl, metrics, watches, objectCount } = options;
  const dropped = options.droppedRequests ?? new DroppedRequests();
  const flowSchemaHeader = `${options.profile.flowControlHeaderPrefix}FlowSchema-UID`;
  const priorityLevelHeader = `${options.profile.flowControlHeaderPrefix}PriorityLevel-UID`;
  // Per classification (the same object until the configuration changes): its two headers and its metric series, made once.
  const prepared = new WeakMap<Classification, Prepared>();
  const prepare = (classification: Classification): Prepared => {
    let found = prepared.get(classification);
    if (found === undefined) {
      found = {
        headers: { [flowSchemaHeader]: classification.flowSchema.uid, [priorityLevelHeader]: classification.priorityLevel.uid },
        series: metrics.series(classification.flowSchema.name, classification.priorityLevel.name),
      };
      prepared.set(classification, found);
    }
    return found;
  };
  return (next) => async (context) => {
    const info = requireInfo(context);
    const { query } = context.request;
    if (bypassesFlowControl(info)) return next(context);
    const classification = flowControl.classify(requireUser(context), info);
    const { headers, series } = prepare(classification);
    // On every answer (a Status included), written by the listener with the answer's own headers.
    addResponseHeader(context, flowSchemaHeader, classification.flowSchema.uid);
    addResponseHeader(context, priorityLevelHeader, classification.priorityLevel.uid);
    const queueSet = classification.priorityLevel.queueSet;
    // One clock read when the request starts executing and one when it ends: the execution
    // histogram and the level's seat-demand integral share them.
    let started = performance.now();
    if (queueSet === undefined) {
      series.dispatched(0);
      // Exempt requests are not limited, but their demand counts when seats are reallocated.
      const demand = classification.priorityLevel.demand;
      demand.set(demand.current + 1, started);
      series.executing(1, 1);
      try {
        const response = await next(context);
        // Watches served in exempt levels count too: a mutation's estimate covers every watcher it notifies.
        return watches !== undefined && info.kind === "resource" && info.verb === "watch" ? trackWatch(watches, response, info, query) : response;
      } finally {
        const ended = performance.now();
        demand.set(demand.current - 1, ended);
        series.executing(-1, 1);
        series.executed((ended - started) / 1000);
      }
    }
    const mutating = watches === undefined ? NO_MUTATING_WORK : estimateMutating(info, watches.interested(info));
    const stored = objectCount !== undefined && readsObjectCount(info) ? objectCount(countedResource(info)) : undefined;
    const seats = Math.max(estimateSeats(info, query, stored), mutating.finalSeats);
    series.estimated(seats);
    // A free seat and nobody waiting (the common case): taken synchronously, no queue entry, no promise.
    let admission = queueSet.tryDispatch(classification.hash, seats, started);
    if (admission === undefined) {
      admission = await queued(context, classification, series, seats);
      started = performance.now();
    }
    if (admission.kind === "rejected") {
      series.rejected(admission.reason satisfies RejectReason, admission.waitedMs / 1000);
      return tooManyRequests(headers, dropped.record(classification.priorityLevel.name));
    }
    series.dispatched(admission.waitedMs / 1000);
    series.executing(1, admission.seats);
    try {
      const response = await next(context);
      return watches !== undefined && info.kind === "resource" && info.verb === "watch" ? trackWatch(watches, response, info, query) : response;
    } finally {
      const ended = performance.now();
      series.executed((ended - started) / 1000);
      // After a mutation, its final seats stay taken while its watchers are notified (kube's additional latency):
      // the request no longer executes, but its seats count in `current_executing_seats` until released, as in kube.
      const final = Math.min(mutating.finalSeats, admission.seats);
      if (final > 0 && mutating.additionalLatencyMs > 0) {
        series.executing(-1, admission.seats - final);
        queueSet.release({ queue: admission.queue, seats: admission.seats - final }, ended);
        const held = admission.queue;
        setTimeout(() => {
          series.seatsReleased(final);
          queueSet.release({ queue: held, seats: final });
        }, mutating.additionalLatencyMs).unref();
      } else {
        series.executing(-1, admission.seats);
        queueSet.release(admission, ended);
      }
    }
  };

  /** Waits in the flow's queue (or is rejected at once: full queue, Reject level without a seat). */
  async function queued(context: RequestContext, classification: Classification, series: FlowSeriesMetrics, seats: number): Promise<Admission> {
    const queueSet = classification.priorityLevel.queueSet;
    if (queueSet === undefined) throw new Error("exempt levels do not queue");
    series.inQueue(1);
    try {
      return await queueSet.acquire(classification.hash, {
        signal: context.request.signal,
        waitLimitMs: options.waitLimitMs,
        flow: classification.distinguisher,
        describe: { flowSchema: classification.flowSchema.name, user: requireUser(context).name, info: requireInfo(context) },
        seats,
      });
    } finally {
      series.inQueue(-1);
    }
  }
}

/** What the filter keeps per classification. */
interface Prepared {
  readonly headers: Readonly<Record<string, string>>;
  readonly series: FlowSeriesMetrics;
}

/** A watch counts as open (for mutations' estimates) until its stream ends. */
function trackWatch(watches: WatchTracker, response: ApiResponse, info: RequestInfo, query: URLSearchParams): ApiResponse {
  if (typeof response.body === "string" || response.body instanceof Uint8Array) return response;
  const forget = watches.register(info, query);
  return { ...response, body: onStreamEnd(response.body, forget) };
}
