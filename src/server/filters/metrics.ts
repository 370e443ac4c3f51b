import type { Filter } from "../../request/context.js";
import type { ApiMetrics } from "../metrics/metrics.js";

/**
 * Counts and times every request. It runs outside the error funnel, so it sees the status each
 * client got, and reads `context.info` after the inner stages set it.
 */
export function metricsFilter(metrics: ApiMetrics): Filter {
  return (next) => async (context) => {
    const started = performance.now();
    const response = await next(context);
    metrics.observeRequest({
      info: context.info,
      method: context.request.method,
      contentType: context.request.headers["content-type"],
      code: response.status,
      seconds: (performance.now() - started) / 1000,
      longRunning: response.longRunning === true,
    });
    return response;
  };
}
