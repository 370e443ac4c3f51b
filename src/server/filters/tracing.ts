import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { Filter } from "../../request/context.js";

/**
 * One server span per request (kube's `KubernetesAPI`), continuing the trace of an incoming W3C
 * `traceparent` header; the rest of the chain runs with it as the active span, so the stages'
 * spans (authentication, authorization, admission, storage) and webhook calls are its children.
 * The span ends when the response starts (a watch's stream is not waited for).
 */
export function tracingFilter(tracer: Tracer): Filter {
  return (next) => async (requestContext) => {
    const request = requestContext.request;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      "KubernetesAPI",
      {
        kind: SpanKind.SERVER,
        attributes: {
          "http.method": request.method,
          "http.target": request.query.size === 0 ? request.path : `${request.path}?${request.query.toString()}`,
          "http.user_agent": request.headers["user-agent"] ?? "",
        },
      },
      parent,
    );
    try {
      const response = await context.with(trace.setSpan(parent, span), () => next(requestContext));
      span.setAttribute("http.status_code", response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  };
}
