import { createRequire } from "node:module";
import { context, propagation, type Tracer } from "@opentelemetry/api";
import type * as ContextAsyncHooks from "@opentelemetry/context-async-hooks";
import type * as Core from "@opentelemetry/core";
import type * as OtlpHttp from "@opentelemetry/exporter-trace-otlp-http";
import type * as Resources from "@opentelemetry/resources";
import type * as SdkTraceBase from "@opentelemetry/sdk-trace-base";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { tracesUrl, type TracingConfiguration } from "./tracing-config.js";

/**
 * The SDK's packages, loaded when tracing is first turned on: importing them costs about a
 * second of start-up on a busy machine, which a server without tracing must not pay.
 */
function loadSdk() {
  const load = createRequire(import.meta.url);
  return {
    contextAsyncHooks: load("@opentelemetry/context-async-hooks") as typeof ContextAsyncHooks,
    core: load("@opentelemetry/core") as typeof Core,
    otlpHttp: load("@opentelemetry/exporter-trace-otlp-http") as typeof OtlpHttp,
    resources: load("@opentelemetry/resources") as typeof Resources,
    traceBase: load("@opentelemetry/sdk-trace-base") as typeof SdkTraceBase,
  };
}

/** The server's tracer and what flushes it. */
export interface Tracing {
  readonly tracer: Tracer;
  /**
   * Sends the spans still buffered and stops exporting. Never fails: spans the collector cannot
   * take (none listening, an error answer) are reported to `onExportError` and dropped, as kube
   * logs them, so the server's stop goes on to close the store.
   */
  shutdown(): Promise<void>;
}

export interface TracingOptions extends TracingConfiguration {
  /** The `service.name` of the spans (kube: `apiserver`). */
  readonly serviceName: string;
  /** Where spans go instead of the OTLP/HTTP exporter (tests); spans are then exported one by one. */
  readonly exporter?: SpanExporter;
  /** Spans that could not be sent when the tracer was shut down. */
  readonly onExportError?: (error: unknown) => void;
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
  const sdk = loadSdk();
  if (!contextManagerSet) {
    context.setGlobalContextManager(new sdk.contextAsyncHooks.AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new sdk.core.W3CTraceContextPropagator());
    contextManagerSet = true;
  }
  const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler } = sdk.traceBase;
  const exporter = options.exporter ?? new sdk.otlpHttp.OTLPTraceExporter({ url: tracesUrl(options.endpoint) });
  const provider = new BasicTracerProvider({
    resource: sdk.resources.resourceFromAttributes({ "service.name": options.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.samplingRatePerMillion / 1_000_000) }),
    spanProcessors: [options.exporter === undefined ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer("apiserver"),
    shutdown: () => provider.shutdown().catch((error: unknown) => options.onExportError?.(error)),
  };
}
