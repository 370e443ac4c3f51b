import { requireInfo, requireUser, type Filter, type RequestContext } from "../../request/context.js";
import { isLongRunning } from "../../request/long-running.js";
import { tooManyRequests } from "./priority-and-fairness.js";

export interface MaxInFlightOptions {
  /** `--max-requests-inflight`: get, list and watch requests executing at once; 0 = no limit. */
  readonly nonMutatingLimit: number;
  /** `--max-mutating-requests-inflight`: every other verb; 0 = no limit. */
  readonly mutatingLimit: number;
  /** A request turned away (429). */
  readonly onRejected?: (context: RequestContext) => void;
}

/** Verbs kube's limiter counts as read-only; every other verb (create, update, patch, delete…, a non-resource POST) is mutating. */
const READ_ONLY_VERBS = new Set(["get", "list", "watch"]);
/** kube's privileged group: its members are never limited. */
const MASTERS = "system:masters";

/**
 * kube's max-in-flight limiter (`WithMaxInFlightLimit`), the filter in priority and fairness's place
 * when `--enable-priority-and-fairness=false`: at most `nonMutatingLimit` read-only and
 * `mutatingLimit` mutating requests execute at once; one over is answered at once with flow
 * control's 429 (`Retry-After: 1`, Go's http.Error text), never queued. Long-running requests
 * (kube's check, `isLongRunning`) and members of `system:masters` are not counted. A limit of 0
 * lifts it.
 */
export function maxInFlightFilter(options: MaxInFlightOptions): Filter {
  const executing = { readOnly: 0, mutating: 0 };
  return (next) => async (context) => {
    const info = requireInfo(context);
    if (isLongRunning(info)) return next(context);
    if (requireUser(context).groups.includes(MASTERS)) return next(context);
    const kind = READ_ONLY_VERBS.has(info.verb) ? "readOnly" : "mutating";
    const limit = kind === "readOnly" ? options.nonMutatingLimit : options.mutatingLimit;
    if (limit <= 0) return next(context);
    if (executing[kind] >= limit) {
      options.onRejected?.(context);
      return tooManyRequests({}, 1);
    }
    executing[kind]++;
    try {
      return await next(context);
    } finally {
      executing[kind]--;
    }
  };
}
