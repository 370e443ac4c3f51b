import type { Filter } from "../../request/context.js";
import type { Logger } from "../../util/logger.js";

/** At verbosity 1 and above, one line per request: method, path, user, status and duration. */
export function requestLogFilter(logger: Logger): Filter {
  return (next) => {
    if (!logger.enabled(1)) return next;
    return async (context) => {
      const started = performance.now();
      const response = await next(context);
      logger.verbose(1, "request", {
        method: context.request.method,
        path: context.request.path,
        query: context.request.query.toString() || undefined,
        user: context.user?.name,
        status: response.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
      });
      return response;
    };
  };
}
