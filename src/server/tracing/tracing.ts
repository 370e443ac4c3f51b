import { context, propagation, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { tracesUrl, type TracingConfiguration } from "./tracing-config.js";

/** The server's tracer and what flushes it. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface TracingOptions extends TracingConfiguration {
  /** The `service.name` of the spans (kube: `apiserver`). */
  readonly serviceName: string;
  /** Where spans go instead of the OTLP/HTTP exporter (tests); spans are then exported one by one. */
  readonly exporter?: SpanExporter;
}

let contextManagerSet = false;

/**
 * OpenTelemetry as kube-apiserver sets it up (APIServerTracing): spans are sampled parent-based
 * (an incoming sampled `traceparent` is followed) with a ratio of samplingRatePerMillion, batched
 * and sent to the collector over OTLP/HTTP (JSON). The W3C trace-context propagator and an
 * AsyncLocalStorage context manager are installed process-wide (once), so spans started below a
 * request (storage, admission, webhook calls) find it as their parent.
 */
export function createTracing(options: TracingOptions): Tracing {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    contextManagerSet = true;
  }
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: tracesUrl(options.endpoint) });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.samplingRatePerMillion / 1_000_000) }),
    spanProcessors: [options.exporter === undefined ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer("apiserver"),
    shutdown: () => provider.shutdown(),
  };
}
