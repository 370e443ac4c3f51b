import { SpanStatusCode, type Attributes, type Tracer } from "@opentelemetry/api";

/**
 * Runs `work` inside a span named `name`, a child of the active span (the request's), when a
 * tracer is given; a failure marks the span as an error. Without a tracer it is a plain call:
 * tracing off costs nothing but this check.
 */
export function inSpan<T>(tracer: Tracer | undefined, name: string, work: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (tracer === undefined) return work();
  return tracer.startActiveSpan(name, attributes === undefined ? {} : { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
