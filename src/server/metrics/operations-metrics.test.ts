import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HoldingStorage } from "../../testing/holding-storage.js";
import { inProcessServer } from "../../testing/in-process.js";
import { sample, sampleSum } from "../../testing/metrics-text.js";
import { resourceLabel } from "./storage-metrics.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

/** Asks until `condition` holds, for at most `attempts` scrapes (each after `beforeEach`); returns the last scrape. */
async function scrapeUntil(server: Server, condition: (text: string) => boolean, attempts = 200, beforeEach?: () => Promise<void>): Promise<string> {
  let text = "";
  for (let attempt = 0; attempt < attempts; attempt++) {
    await beforeEach?.();
    text = (await server.call("GET", "/metrics")).text;
    if (condition(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return text;
}

describe("/metrics: in-flight, long-running, storage and admission", () => {
  let server: Server;
  let storage: HoldingStorage;
  before(async () => {
    storage = new HoldingStorage("metrics-held");
    server = await inProcessServer({ storage, metrics: { etcdCountMetricPollPeriodMs: 20 } });
  });
  after(async () => {
    await server.stop();
  });

  it("apiserver_current_inflight_requests counts executing requests by readOnly and mutating", async () => {
    const idle = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(idle, "apiserver_current_inflight_requests", { request_kind: "mutating" }), 0);
    assert.equal(sample(idle, "apiserver_current_inflight_requests", { request_kind: "readOnly" }), 1, "the scrape itself");
    const pending = server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "metrics-held" } },
    });
    await storage.reached;
    const busy = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(busy, "apiserver_current_inflight_requests", { request_kind: "mutating" }), 1);
    storage.release();
    assert.equal((await pending).status, 201);
    const after = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(after, "apiserver_current_inflight_requests", { request_kind: "mutating" }), 0);
  });

  it("apiserver_longrunning_requests counts open watches with kube's labels until they end", async () => {
    const labels = { verb: "WATCH", group: "", version: "v1", resource: "configmaps", scope: "namespace", component: "apiserver" };
    const before = sample((await server.call("GET", "/metrics")).text, "apiserver_longrunning_requests", labels) ?? 0;
    const abort = new AbortController();
    const response = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=true", { signal: abort.signal });
    assert.equal(response.status, 200);
    assert.ok(typeof response.body === "object" && Symbol.asyncIterator in response.body);
    const iterator = (response.body as AsyncIterable<string | Uint8Array>)[Symbol.asyncIterator]();
    const first = iterator.next();
    const open = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(open, "apiserver_longrunning_requests", labels), before + 1);
    assert.equal(sample(open, "apiserver_current_inflight_requests", { request_kind: "readOnly" }), 1, "a watch leaves the in-flight gauge once it streams");
    abort.abort();
    await first.catch(() => undefined);
    await iterator.return?.();
    const closed = (await server.call("GET", "/metrics")).text;
    assert.equal(sample(closed, "apiserver_longrunning_requests", labels), before);
  });

  it("storage calls are timed and counted by operation and resource (etcd_request_duration_seconds)", async () => {
    const before = (await server.call("GET", "/metrics")).text;
    const created = (labels: Record<string, string>, text: string): number => sample(text, "etcd_request_duration_seconds_count", labels) ?? 0;
    await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "metrics-stored" } } });
    await server.call("DELETE", "/api/v1/namespaces/default/configmaps/metrics-stored");
    const text = (await server.call("GET", "/metrics")).text;
    assert.equal(created({ operation: "create", type: "configmaps" }, text), created({ operation: "create", type: "configmaps" }, before) + 1);
    assert.ok(created({ operation: "update", type: "configmaps" }, text) + created({ operation: "delete", type: "configmaps" }, text) > 0);
    assert.ok((sample(text, "etcd_requests_total", { operation: "create", type: "configmaps" }) ?? 0) >= 1);
    assert.equal(resourceLabel({ group: "apps", resource: "deployments" }), "deployments.apps", "a group's resource is <plural>.<group>");
    assert.equal(resourceLabel({ group: "", resource: "namespaces" }), "namespaces");
  });

  it("apiserver_storage_objects follows the number of stored objects per resource", async () => {
    const count = (text: string): number | undefined => sample(text, "apiserver_storage_objects", { resource: "configmaps" });
    for (const name of ["metrics-count-a", "metrics-count-b"])
      await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name } } });
    // Controllers add root-CA config maps meanwhile: compare with the list at each scrape.
    let listed = -1;
    const text = await scrapeUntil(
      server,
      (scraped) => {
        return count(scraped) === listed;
      },
      200,
      async () => {
        listed = ((await server.call("GET", "/api/v1/configmaps")).json["items"] as unknown[]).length;
      },
    );
    assert.equal(count(text), listed);
    assert.ok(listed >= 2);
    assert.ok((sample(text, "apiserver_storage_objects", { resource: "namespaces" }) ?? 0) >= 4, "the built-in namespaces");
  });

  it("admission steps and plugins are timed with type, operation and rejected (kube's labels)", async () => {
    const steps = (text: string, labels: Record<string, string>): number =>
      sampleSum(text, "apiserver_admission_step_admission_duration_seconds_count", labels);
    const plugin = (text: string, labels: Record<string, string>): number =>
      sampleSum(text, "apiserver_admission_controller_admission_duration_seconds_count", labels);
    const before = (await server.call("GET", "/metrics")).text;
    await server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "metrics-admitted" } },
    });
    const refused = await server.call("POST", "/api/v1/namespaces/metrics-missing/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "metrics-refused" } },
    });
    assert.equal(refused.status, 404);
    const text = (await server.call("GET", "/metrics")).text;
    for (const type of ["admit", "validate"])
      assert.ok(steps(text, { type, operation: "CREATE", rejected: "false" }) > steps(before, { type, operation: "CREATE", rejected: "false" }), type);
    assert.equal(
      steps(text, { type: "validate", operation: "CREATE", rejected: "true" }),
      steps(before, { type: "validate", operation: "CREATE", rejected: "true" }) + 1,
    );
    assert.equal(
      plugin(text, { name: "NamespaceLifecycle", type: "validate", operation: "CREATE", rejected: "true" }),
      plugin(before, { name: "NamespaceLifecycle", type: "validate", operation: "CREATE", rejected: "true" }) + 1,
    );
    assert.ok(plugin(text, { name: "NamespaceLifecycle", type: "validate", operation: "CREATE", rejected: "false" }) >= 1);
  });

  it("help texts carry kube's stability level", async () => {
    const text = (await server.call("GET", "/metrics")).text;
    assert.match(text, /# HELP apiserver_request_total \[STABLE\] /);
    assert.match(text, /# HELP apiserver_storage_objects \[STABLE\] /);
    assert.match(text, /# HELP etcd_request_duration_seconds \[ALPHA\] /);
  });
});
