import { ApiError } from "../../api/errors.js";
import { requireInfo, type ApiResponse, type Filter, type RequestContext } from "../../request/context.js";
import { isLongRunning } from "../../request/long-running.js";
import { queryTimeout } from "../../request/query/index.js";

export interface TimeoutFilterOptions {
  /** `--request-timeout`: the longest a non-long-running request may take (0 or less: no limit). */
  readonly requestTimeoutMs: number;
  /** A request ran out of time and was answered 504 (`apiserver_request_terminations_total`). */
  readonly onTimeout?: (context: RequestContext) => void;
  /** Work that went on after its request was answered 504 failed later (logged, never answered). */
  readonly onLateError?: (error: unknown) => void;
}

/** kube's answer when a request outlives its deadline (the handler timeout's Status). */
export function requestTimedOut(): ApiError {
  return new ApiError(504, "Timeout", "Timeout: request did not complete within the allotted timeout", { details: {} });
}

/**
 * The request deadline and handler timeout (kube's `WithRequestDeadline` and
 * `WithTimeoutForNonLongRunningRequests`), right after request info: a request that is not
 * long-running (watch, attach, exec, proxy, log, portforward: `request/long-running.ts`) gets
 * `--request-timeout`, lowered by its `timeout` query parameter when that is shorter and above 0
 * (an unparsable one is 400). When the deadline passes first, the request is answered 504 Timeout
 * and `onTimeout` counts it; the stages below see their `request.signal` abort (a request still
 * queued by flow control leaves its queue), and whatever they still produce is dropped: a late
 * response's stream is returned unread, a late failure goes to `onLateError`. The answer is
 * only ever the one this filter returns, so there is no double response, and a late result
 * cannot throw where nobody awaits it.
 */
export function timeoutFilter(options: TimeoutFilterOptions): Filter {
  return (next) => async (context) => {
    const info = requireInfo(context);
    if (isLongRunning(info)) return next(context);
    const requested = queryTimeout(context.request.query);
    const limit = requested !== undefined && requested > 0 && requested < options.requestTimeoutMs ? requested : options.requestTimeoutMs;
    if (!(limit > 0)) return next(context);
    const deadline = new AbortController();
    const inner: RequestContext = { ...context, request: { ...context.request, signal: AbortSignal.any([context.request.signal, deadline.signal]) } };
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), limit);
    });
    const work = next(inner);
    try {
      const first = await Promise.race([work, expired]);
      if (first !== "expired") return first;
    } finally {
      clearTimeout(timer);
      // Stages below set the user (and others) on their own copy of the context; outer filters (the request log) read it here.
      if (inner.user !== undefined) context.user = inner.user;
    }
    deadline.abort(new Error("request deadline exceeded"));
    options.onTimeout?.(context);
    work.then(discard, (error: unknown) => options.onLateError?.(error));
    throw requestTimedOut();
  };
}

/** A response produced after its request was answered: its stream, if any, is ended unread. */
function discard(response: ApiResponse): void {
  const body = response.body;
  if (typeof body === "string" || body instanceof Uint8Array) return;
  const iterator = body[Symbol.asyncIterator]();
  void iterator.return?.()?.catch(() => undefined);
}
