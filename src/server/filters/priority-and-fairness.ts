import { ApiError } from "../../api/errors.js";
import type { Profile } from "../../api/profile.js";
import { requireInfo, requireUser, type ApiResponse, type Filter } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";
import type { FlowControl } from "../flowcontrol/flow-control.js";
import type { FlowControlMetrics } from "../flowcontrol/flowcontrol-metrics.js";
import type { RejectReason } from "../flowcontrol/queue-set.js";
import type { WatchTracker } from "../flowcontrol/watch-tracker.js";
import { countedResource, estimateMutating, estimateSeats } from "../flowcontrol/work-estimate.js";
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
}

/** Sub-resources that hold a connection open (exec, attach, port-forward, proxy): kube lets them past flow control. */
const LONG_RUNNING_SUBRESOURCES = new Set(["exec", "attach", "portforward", "proxy"]);

function bypassesFlowControl(info: RequestInfo, query: URLSearchParams): boolean {
  if (info.kind !== "resource") return false;
  if (LONG_RUNNING_SUBRESOURCES.has(info.subresource)) return true;
  return info.subresource === "log" && query.get("follow") === "true";
}

/** kube's 429 from flow control: reason TooManyRequests, retry after one second. */
export function tooManyRequests(headers: Record<string, string>): ApiError {
  return new ApiError(429, "TooManyRequests", "Too many requests, please try again later.", {
    details: { retryAfterSeconds: 1 },
    headers: { ...headers, "Retry-After": "1" },
  });
}

function withHeaders(response: ApiResponse, headers: Record<string, string>): ApiResponse {
  // Fields named rather than spread: this runs on every request and a spread of a response is slower.
  const merged: Record<string, string | readonly string[]> = {};
  for (const key in response.headers) merged[key] = response.headers[key] as string | readonly string[];
  for (const key in headers) merged[key] = headers[key] as string;
  return response.longRunning === undefined
    ? { status: response.status, headers: merged, body: response.body }
    : { status: response.status, headers: merged, body: response.body, longRunning: response.longRunning };
}

/** An ApiError carries the flow-control headers too; other failures pass unchanged. */
function withErrorHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(error.code, error.reason, error.message, {
    details: error.details,
    headers: { ...error.headers, ...headers },
    listMeta: error.listMeta,
    cause: error.cause,
  });
}

/**
 * API Priority and Fairness (after impersonation, before authorization, as in kube's chain):
 * classifies the request by the first matching FlowSchema, sends the FlowSchema's and priority
 * level's UIDs as `X-<profile>-PF-*-UID` headers on every answer, and holds a seat of the level
 * for the request's execution, waiting in the flow's shuffle-sharded queue when none is free.
 * A full queue, a Reject level without a free seat, or a wait past `waitLimitMs` is 429 with
 * `Retry-After`. Exempt levels never wait. A watch holds its seat only until its response starts
 * (its set-up and initial state), as kube accounts watches; exec, attach, port-forward, proxy and
 * followed logs are not flow-controlled. A list takes the seats of kube's work estimate
 * (flowcontrol/work-estimate.ts: one per 100 objects it processes, 1 to 10); a create, update,
 * patch or delete whose change at least 10 open watches will receive holds one seat per 10 of
 * them (at most 10) and keeps them for 5 ms per seat of work after it executed.
 */
export function priorityAndFairnessFilter(options: PriorityAndFairnessOptions): Filter {
  const { flowControl, metrics } = options;
  const flowSchemaHeader = `${options.profile.flowControlHeaderPrefix}FlowSchema-UID`;
  const priorityLevelHeader = `${options.profile.flowControlHeaderPrefix}PriorityLevel-UID`;
  return (next) => async (context) => {
    const info = requireInfo(context);
    const { query, signal } = context.request;
    if (bypassesFlowControl(info, query)) return next(context);
    const user = requireUser(context);
    const classification = flowControl.classify(user, info);
    const schemaName = classification.flowSchema.name;
    const levelName = classification.priorityLevel.name;
    const headers = { [flowSchemaHeader]: classification.flowSchema.uid, [priorityLevelHeader]: classification.priorityLevel.uid };
    const queueSet = classification.priorityLevel.queueSet;
    if (queueSet === undefined) {
      metrics.dispatched(schemaName, levelName, 0);
      // Exempt requests are not limited, but their demand counts when seats are reallocated.
      const demand = classification.priorityLevel.demand;
      demand.set(demand.current + 1);
      const started = performance.now();
      metrics.executing(schemaName, levelName, 1, 1);
      try {
        return trackWatch(withHeaders(await next(context), headers));
      } catch (error) {
        throw withErrorHeaders(error, headers);
      } finally {
        demand.set(demand.current - 1);
        metrics.executing(schemaName, levelName, -1, 1);
        metrics.executed(schemaName, levelName, (performance.now() - started) / 1000);
      }
    }
    const mutating = estimateMutating(info, options.watches?.interested(info) ?? 0);
    const seats = Math.max(estimateSeats(info, query, options.objectCount?.(countedResource(info))), mutating.finalSeats);
    metrics.estimated(schemaName, levelName, seats);
    metrics.inQueue(schemaName, levelName, 1);
    const admission = await queueSet.acquire(flowControl.hashOf(classification), {
      signal,
      waitLimitMs: options.waitLimitMs,
      flow: classification.distinguisher,
      describe: { flowSchema: schemaName, user: user.name, info },
      seats,
    });
    metrics.inQueue(schemaName, levelName, -1);
    if (admission.kind === "rejected") {
      metrics.rejected(schemaName, levelName, admission.reason satisfies RejectReason, admission.waitedMs / 1000);
      throw tooManyRequests(headers);
    }
    metrics.dispatched(schemaName, levelName, admission.waitedMs / 1000);
    const started = performance.now();
    metrics.executing(schemaName, levelName, 1, admission.seats);
    try {
      return trackWatch(withHeaders(await next(context), headers));
    } catch (error) {
      throw withErrorHeaders(error, headers);
    } finally {
      metrics.executed(schemaName, levelName, (performance.now() - started) / 1000);
      // After a mutation, its final seats stay taken while its watchers are notified (kube's additional latency):
      // the request no longer executes, but its seats count in `current_executing_seats` until released, as in kube.
      const final = Math.min(mutating.finalSeats, admission.seats);
      if (final > 0 && mutating.additionalLatencyMs > 0) {
        metrics.executing(schemaName, levelName, -1, admission.seats - final);
        queueSet.release({ queue: admission.queue, seats: admission.seats - final });
        setTimeout(() => {
          metrics.seatsReleased(schemaName, levelName, final);
          queueSet.release({ queue: admission.queue, seats: final });
        }, mutating.additionalLatencyMs).unref();
      } else {
        metrics.executing(schemaName, levelName, -1, admission.seats);
        queueSet.release(admission);
      }
    }

    /** A watch counts as open (for mutations' estimates) until its stream ends. */
    function trackWatch(response: ApiResponse): ApiResponse {
      if (options.watches === undefined || info.kind !== "resource" || info.verb !== "watch") return response;
      if (typeof response.body === "string" || response.body instanceof Uint8Array) return response;
      const forget = options.watches.register(info, query);
      return { ...response, body: onStreamEnd(response.body, forget) };
    }
  };
}
