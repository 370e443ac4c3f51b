import type { ApiRequest, Filter } from "../../request/context.js";
import { measureStream, onStreamEnd } from "../../request/stream-end.js";
import type { ApiMetrics } from "../metrics/metrics.js";

/** Methods that only read; every other method counts as mutating (kube's readOnly/mutating kinds). */
const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The request's abort, read without making its signal where the listener makes it on first need. */
function clientWentAway(request: ApiRequest): boolean {
  return request.aborted ?? request.signal.aborted;
}

/**
 * Counts and times every request, and keeps the in-flight and long-running gauges. It runs
 * outside the error funnel, so it sees the status each client got, and reads `context.info`
 * after the inner stages set it. A long-running response (watch) leaves the in-flight gauge when
 * it starts and stays in `apiserver_longrunning_requests` until its stream ends. GETs' and LISTs'
 * body sizes go to `apiserver_response_sizes` (streamed lists: once written); a request whose
 * client disconnected before the answer was ready counts in `apiserver_request_aborts_total`.
 */
export function metricsFilter(metrics: ApiMetrics): Filter {
  return (next) => async (context) => {
    const started = performance.now();
    const method = context.request.method;
    const endInflight = metrics.requestStarted(!READ_ONLY_METHODS.has(method.toUpperCase()));
    const contentType = context.request.headers["content-type"];
    let response: Awaited<ReturnType<typeof next>>;
    try {
      response = await next(context);
    } catch (error) {
      if (clientWentAway(context.request)) metrics.requestAborted({ info: context.info, method, contentType });
      throw error;
    } finally {
      endInflight();
    }
    const longRunning = response.longRunning === true;
    // The client went away before its answer was ready: kube counts the request as aborted.
    if (!longRunning && clientWentAway(context.request)) metrics.requestAborted({ info: context.info, method, contentType });
    const query = context.request.query;
    metrics.observeRequest({
      info: context.info,
      method,
      contentType,
      dryRun: query.has("dryRun") ? query.getAll("dryRun") : undefined,
      code: response.status,
      seconds: (performance.now() - started) / 1000,
      longRunning,
    });
    const body = response.body;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const bytes = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
      metrics.observeResponseSize({ info: context.info, method, contentType }, bytes);
      return response;
    }
    if (!longRunning) {
      if (method.toUpperCase() !== "GET") return response;
      // A streamed list: its size is known once written.
      const observe = (bytes: number) => metrics.observeResponseSize({ info: context.info, method, contentType }, bytes);
      return { ...response, body: measureStream(body, observe) };
    }
    const endLongRunning = metrics.longRunningStarted({ info: context.info, method, contentType });
    return { ...response, body: onStreamEnd(body, endLongRunning) };
  };
}
