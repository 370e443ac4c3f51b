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
 * and `onTimeout` counts it. The work below is not cancelled (kube cancels its context; here the
 * stages keep the client's signal, and flow control's queue wait, a quarter of
 * `--request-timeout`, ends first): it runs to its end and what it produces is dropped, a late
 * response's stream returned unread, a late failure passed to `onLateError`. The answer is
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
    // One promise settled by whichever comes first: cheaper per request than Promise.race over a
    // timer promise. The stages below keep the client's signal: a signal of their own that also
    // aborted at the deadline would cost an abort listener per request (several microseconds).
    return new Promise<ApiResponse>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        options.onTimeout?.(context);
        reject(requestTimedOut());
      }, limit);
      next(context).then(
        (response) => {
          if (settled) return discard(response);
          settled = true;
          clearTimeout(timer);
          resolve(response);
        },
        (error: unknown) => {
          if (settled) return options.onLateError?.(error);
          settled = true;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  };
}

/** A response produced after its request was answered: its stream, if any, is ended unread. */
function discard(response: ApiResponse): void {
  const body = response.body;
  if (typeof body === "string" || body instanceof Uint8Array) return;
  const iterator = body[Symbol.asyncIterator]();
  void iterator.return?.()?.catch(() => undefined);
}
