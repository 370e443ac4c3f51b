import { ApiError } from "../../api/errors.js";
import type { ProtobufWire } from "../../codec/negotiate.js";
import { errorResponse } from "../../codec/status.js";
import { warningHeaderValues, type Filter } from "../../request/context.js";

/**
 * The outermost filter: anything thrown below becomes a Status response, with the warnings
 * recorded before the failure. Unknown errors are 500s and are reported through
 * `onInternalError` (logging), ApiErrors are expected outcomes.
 */
export function errorFunnel(onInternalError: (error: unknown) => void, protobuf?: ProtobufWire): Filter {
  return (next) => async (context) => {
    try {
      return await next(context);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code >= 500) onInternalError(error);
      const response = protobuf === undefined ? errorResponse(error) : errorResponse(error, { accept: context.request.headers["accept"], wire: protobuf });
      // Warnings recorded before the failure go out with it, as kube's do (a deprecated version's, the kind's).
      return context.warnings.length === 0 ? response : { ...response, headers: { ...response.headers, warning: warningHeaderValues(context) } };
    }
  };
}
