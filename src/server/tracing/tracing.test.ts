import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { inProcessServer } from "../../testing/in-process.js";
import { featureGates } from "../../util/feature-gates.js";
import { generateTestPki, startWebhookServer } from "../../testing/webhook-server.js";
import { loadTracingConfig, TracingConfigError, tracesUrl } from "./tracing-config.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";
const tracingOn = featureGates(new Map([["APIServerTracing", true]]));

/** The spans whose parent chain reaches `root`, by name. */
function descendants(spans: readonly ReadableSpan[], root: ReadableSpan): Set<string> {
  const ids = new Set([root.spanContext().spanId]);
  const names = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const span of spans) {
      const parent = span.parentSpanContext?.spanId;
      if (parent !== undefined && ids.has(parent) && !ids.has(span.spanContext().spanId)) {
        ids.add(span.spanContext().spanId);
        names.add(span.name);
        grew = true;
      }
    }
  }
  return names;
}

describe("tracing (APIServerTracing, --tracing-config-file)", () => {
  it("a request's span continues the incoming traceparent; authentication, authorization, admission and storage are its descendants", async () => {
    const exporter = new InMemorySpanExporter();
    const server = await inProcessServer({ featureGates: tracingOn, tracing: { endpoint: "unused:4317", samplingRatePerMillion: 1_000_000, exporter } });
    try {
      exporter.reset();
      const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "traced" } },
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
      });
      assert.equal(created.status, 201);
      const spans = exporter.getFinishedSpans();
      const request = spans.find((span) => span.name === "KubernetesAPI" && span.spanContext().traceId === TRACE_ID);
      assert.ok(request, "the request span joins the incoming trace");
      assert.equal(request.parentSpanContext?.spanId, PARENT_SPAN);
      assert.equal(request.attributes["http.method"], "POST");
      assert.equal(request.attributes["http.status_code"], 201);
      const below = descendants(spans, request);
      for (const name of ["authentication", "authorization", "admission.mutate", "admission.validate", "storage.create"]) assert.ok(below.has(name), name);
      for (const span of spans.filter((candidate) => below.has(candidate.name))) assert.equal(span.spanContext().traceId, TRACE_ID);
    } finally {
      await server.stop();
    }
  });

  it("admission webhooks receive the request's trace in their traceparent header", async () => {
    const pki = generateTestPki();
    const hooks = await startWebhookServer(pki, () => ({ response: { allowed: true } }));
    const exporter = new InMemorySpanExporter();
    const server = await inProcessServer({ featureGates: tracingOn, tracing: { endpoint: "unused:4317", samplingRatePerMillion: 0, exporter } });
    try {
      const configured = await server.call("POST", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations", {
        body: {
          apiVersion: "admissionregistration.orch.io/v1",
          kind: "ValidatingWebhookConfiguration",
          metadata: { name: "traced" },
          webhooks: [
            {
              name: "traced.test.io",
              clientConfig: { url: `${hooks.url}/allow`, caBundle: pki.caBundle },
              rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
              sideEffects: "None",
              admissionReviewVersions: ["v1"],
            },
          ],
        },
      });
      assert.equal(configured.status, 201, configured.text);
      await server.server.registry.freshness.waitForCurrent(2000);
      const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "traced-hook" } },
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(hooks.traceparents.length, 1);
      const [version, traceId, spanId, flags] = (hooks.traceparents[0] ?? "").split("-");
      assert.deepEqual([version, traceId, flags], ["00", TRACE_ID, "01"]);
      const finished = exporter.getFinishedSpans();
      const call = finished.find((span) => span.spanContext().spanId === spanId);
      assert.equal(call?.name, "Call validating webhook", "the hook's parent is its call's span");
      assert.deepEqual(
        { ...call?.attributes },
        {
          configuration: "traced",
          webhook: "traced.test.io",
          resource: "v1, Resource=configmaps",
          subresource: "",
          operation: "CREATE",
          UID: call?.attributes["UID"],
        },
      );
      assert.ok(typeof call?.attributes["UID"] === "string" && call.attributes["UID"] !== "");
      const validate = finished.find((span) => span.spanContext().spanId === call?.parentSpanContext?.spanId);
      assert.equal(validate?.name, "admission.validate", "the call is below the admission span");
    } finally {
      await server.stop();
      await hooks.close();
    }
  });

  it("samples parent-based: with a rate of 0 only requests whose traceparent is sampled are traced", async () => {
    const exporter = new InMemorySpanExporter();
    const server = await inProcessServer({ featureGates: tracingOn, tracing: { endpoint: "unused:4317", samplingRatePerMillion: 0, exporter } });
    try {
      exporter.reset();
      await server.call("GET", "/api/v1/namespaces/default/configmaps");
      await server.call("GET", "/api/v1/namespaces/default/configmaps", { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-00` } });
      assert.deepEqual(
        exporter.getFinishedSpans().filter((span) => span.name === "KubernetesAPI"),
        [],
      );
      await server.call("GET", "/api/v1/namespaces/default/configmaps", { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` } });
      const traced = exporter.getFinishedSpans().filter((span) => span.name === "KubernetesAPI");
      assert.equal(traced.length, 1);
      assert.equal(traced[0]?.spanContext().traceId, TRACE_ID);
    } finally {
      await server.stop();
    }
  });

  it("without the gate nothing is traced", async () => {
    const exporter = new InMemorySpanExporter();
    const server = await inProcessServer({ tracing: { endpoint: "unused:4317", samplingRatePerMillion: 1_000_000, exporter } });
    try {
      await server.call("GET", "/api/v1/namespaces/default/configmaps", { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` } });
      assert.deepEqual(exporter.getFinishedSpans(), []);
    } finally {
      await server.stop();
    }
  });

  it("a collector that cannot be reached does not fail the server's stop (the spans are dropped)", async () => {
    // A loopback port with nothing listening (kube's default endpoint, localhost:4317, is usually so).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const endpoint = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const server = await inProcessServer({ featureGates: tracingOn, tracing: { endpoint, samplingRatePerMillion: 1_000_000 } });
    const reply = await server.call("GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(reply.status, 200);
    // The batch processor holds the request's spans until the stop flushes them into the refused connection.
    await server.stop();
  });

  it("exports spans over OTLP/HTTP to the configured endpoint (a loopback collector)", async () => {
    const bodies: unknown[] = [];
    const collector = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.url === "/v1/traces") bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const endpoint = `127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const pki = generateTestPki();
    const hooks = await startWebhookServer(pki, () => ({ response: { allowed: true } }));
    try {
      const server = await inProcessServer({ featureGates: tracingOn, tracing: { endpoint, samplingRatePerMillion: 1_000_000 } });
      const configured = await server.call("POST", "/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations", {
        body: {
          metadata: { name: "exported" },
          webhooks: [
            {
              name: "exported.test.io",
              clientConfig: { url: `${hooks.url}/allow`, caBundle: pki.caBundle },
              rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
              sideEffects: "None",
              admissionReviewVersions: ["v1"],
            },
          ],
        },
      });
      assert.equal(configured.status, 201, configured.text);
      await server.server.registry.freshness.waitForCurrent(2000);
      await server.call("GET", "/api/v1/namespaces/default/configmaps", { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` } });
      const created = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "exported" } } });
      assert.equal(created.status, 201, created.text);
      await server.stop(); // flushes the batch
      const spans = JSON.stringify(bodies);
      assert.ok(spans.includes('"name":"KubernetesAPI"'), spans.slice(0, 500));
      assert.ok(spans.includes(TRACE_ID), "the incoming trace id, hex-encoded");
      assert.ok(spans.includes('"stringValue":"apiserver"'), "service.name");
      assert.ok(spans.includes('"name":"Call mutating webhook"'), "a span per webhook call");
      assert.ok(spans.includes('"stringValue":"exported.test.io"'), "naming the webhook");
    } finally {
      collector.close();
      await hooks.close();
    }
  });

  it("reads kube's TracingConfiguration (endpoint, samplingRatePerMillion) in the profile's group", () => {
    const dir = mkdtempSync(join(tmpdir(), "tracing-config-"));
    try {
      const file = join(dir, "tracing.yaml");
      writeFileSync(file, "apiVersion: apiserver.config.orch.io/v1beta1\nkind: TracingConfiguration\nendpoint: collector:4318\nsamplingRatePerMillion: 100\n");
      assert.deepEqual(loadTracingConfig(file, ORCH_PROFILE), { endpoint: "collector:4318", samplingRatePerMillion: 100 });
      writeFileSync(file, "apiVersion: apiserver.config.orch.io/v1\nkind: TracingConfiguration\n");
      assert.deepEqual(loadTracingConfig(file, ORCH_PROFILE), { endpoint: "localhost:4317", samplingRatePerMillion: 0 });
      writeFileSync(file, "apiVersion: apiserver.config.orch.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n");
      assert.throws(() => loadTracingConfig(file, ORCH_PROFILE), TracingConfigError);
      writeFileSync(file, "apiVersion: other/v1\nkind: TracingConfiguration\n");
      assert.throws(() => loadTracingConfig(file, ORCH_PROFILE), /apiVersion must be one of [^;]*$/);
      writeFileSync(file, "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n---\n");
      assert.throws(() => loadTracingConfig(file, ORCH_PROFILE), /; this server runs --compat orch, .* start the server with --compat kubernetes/);
      assert.doesNotThrow(() => loadTracingConfig(file, KUBERNETES_PROFILE));
      assert.equal(tracesUrl("collector:4318"), "http://collector:4318/v1/traces");
      assert.equal(tracesUrl("https://collector:4318"), "https://collector:4318/v1/traces");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
