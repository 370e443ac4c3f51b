import type { Filter } from "../../request/context.js";
import { onStreamEnd } from "../../request/stream-end.js";
import type { ApiMetrics } from "../metrics/metrics.js";

/** Methods that only read; every other method counts as mutating (kube's readOnly/mutating kinds). */
const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Counts and times every request, and keeps the in-flight and long-running gauges. It runs
 * outside the error funnel, so it sees the status each client got, and reads `context.info`
 * after the inner stages set it. A long-running response (watch) leaves the in-flight gauge when
 * it starts and stays in `apiserver_longrunning_requests` until its stream ends.
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
    } finally {
      endInflight();
    }
    const longRunning = response.longRunning === true;
    metrics.observeRequest({
      info: context.info,
      method,
      contentType,
      code: response.status,
      seconds: (performance.now() - started) / 1000,
      longRunning,
    });
    if (!longRunning || typeof response.body === "string" || response.body instanceof Uint8Array) return response;
    const endLongRunning = metrics.longRunningStarted({ info: context.info, method, contentType });
    return { ...response, body: onStreamEnd(response.body, endLongRunning) };
  };
}
