import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../../testing/in-process.js";
import { WatchReader } from "../../testing/watch-reader.js";
import { endpointSliceV1beta1StoredAsV1, hpaV1StoredAsV2, eventsV1StoredAsCore } from "./conversion.js";
import type { ApiObject } from "../../api/object.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

describe("conversions between served versions", () => {
  it("round-trips an autoscaling/v2 HPA through v1 without loss", () => {
    const conversion = hpaV1StoredAsV2("autoscaling.alpha.orch.io");
    const v2: ApiObject = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "default", annotations: { keep: "me" } },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
      status: {
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } }],
        conditions: [{ type: "AbleToScale", status: "True" }],
      },
    };
    const v1 = conversion.fromStorage(v2);
    assert.equal(v1.apiVersion, "autoscaling/v1");
    assert.equal((v1["spec"] as Json)["targetCPUUtilizationPercentage"], 70);
    assert.equal((v1["status"] as Json)["currentCPUUtilizationPercentage"], 40);
    assert.equal((v1["spec"] as Json)["metrics"], undefined);
    assert.deepEqual(conversion.toStorage(v1), v2);
  });

  it("stores an autoscaling/v1 HPA without a CPU target as kube's v2 default, 80% CPU, read back through v1 as 80", () => {
    const conversion = hpaV1StoredAsV2("autoscaling.alpha.orch.io");
    const v1: ApiObject = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web", namespace: "default" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 3 },
    };
    const stored = conversion.toStorage(v1);
    assert.deepEqual((stored["spec"] as Json)["metrics"], [
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
    ]);
    assert.equal((conversion.fromStorage(stored)["spec"] as Json)["targetCPUUtilizationPercentage"], 80);
  });

  it("round-trips an events v1 Event through core v1 with the renamed fields", () => {
    const conversion = eventsV1StoredAsCore("events.orch.io");
    const v1: ApiObject = {
      apiVersion: "events.orch.io/v1",
      kind: "Event",
      metadata: { name: "e1", namespace: "default" },
      regarding: { kind: "Pod", name: "p" },
      note: "pulled",
      reason: "Pulled",
      type: "Normal",
      reportingController: "kubelet",
      reportingInstance: "node-1",
      action: "Pull",
      eventTime: "2026-01-01T00:00:00.000000Z",
      deprecatedCount: 3,
    };
    const core = conversion.toStorage(v1);
    assert.equal(core.apiVersion, "v1");
    assert.deepEqual(core["involvedObject"], { kind: "Pod", name: "p" });
    assert.equal(core["message"], "pulled");
    assert.equal(core["reportingComponent"], "kubelet");
    assert.equal(core["count"], 3);
    assert.deepEqual(conversion.fromStorage(core), v1);
  });
});

describe("discovery v1beta1 EndpointSlice conversion", () => {
  const conversion = endpointSliceV1beta1StoredAsV1("discovery.orch.io", "orch.io");
  const slice = (apiVersion: string, endpoints: unknown[]): ApiObject => ({
    apiVersion,
    kind: "EndpointSlice",
    metadata: { name: "s", namespace: "default" },
    addressType: "IPv4",
    endpoints,
  });

  it("moves the zone and a hostname equal to nodeName out of topology, keeping other keys as deprecatedTopology", () => {
    const v1beta1 = slice("discovery.orch.io/v1beta1", [
      { addresses: ["10.0.0.1"], nodeName: "n1", topology: { "topology.orch.io/zone": "z1", "orch.io/hostname": "n1", rack: "r7" } },
    ]);
    const stored = conversion.toStorage(v1beta1);
    assert.equal(stored.apiVersion, "discovery.orch.io/v1");
    assert.deepEqual(stored["endpoints"], [{ addresses: ["10.0.0.1"], nodeName: "n1", zone: "z1", deprecatedTopology: { rack: "r7" } }]);
    assert.deepEqual(conversion.fromStorage(stored)["endpoints"], [
      { addresses: ["10.0.0.1"], nodeName: "n1", topology: { rack: "r7", "topology.orch.io/zone": "z1", "orch.io/hostname": "n1" } },
    ]);
  });

  it("keeps a hostname that differs from nodeName, and gives v1 endpoints a topology built from zone and nodeName", () => {
    const odd = slice("discovery.orch.io/v1beta1", [{ addresses: ["10.0.0.2"], nodeName: "n1", topology: { "orch.io/hostname": "other" } }]);
    const stored = conversion.toStorage(odd);
    assert.deepEqual(stored["endpoints"], [{ addresses: ["10.0.0.2"], nodeName: "n1", deprecatedTopology: { "orch.io/hostname": "other" } }]);
    assert.deepEqual(conversion.fromStorage(stored), odd);
    const v1 = slice("discovery.orch.io/v1", [{ addresses: ["10.0.0.3"], nodeName: "n2", zone: "z2" }, { addresses: ["10.0.0.4"] }]);
    assert.deepEqual(conversion.fromStorage(v1)["endpoints"], [
      { addresses: ["10.0.0.3"], nodeName: "n2", topology: { "topology.orch.io/zone": "z2", "orch.io/hostname": "n2" } },
      { addresses: ["10.0.0.4"] },
    ]);
    assert.deepEqual(conversion.toStorage(conversion.fromStorage(v1)), v1);
  });
});

describe("the catalogue's group versions", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer({
      runtimeConfig: new Map([
        ["flowcontrol.apiserver.orch.io/v1", false],
        ["flowcontrol.apiserver.orch.io/v1beta3", false],
      ]),
    });
  });
  after(async () => {
    await server.stop();
  });

  it("serves a kind at two versions from one stored object", async () => {
    const created = await server.call("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", {
      body: {
        metadata: { name: "h" },
        spec: { scaleTargetRef: { kind: "Deployment", name: "d", apiVersion: "apps/v1" }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json["apiVersion"], "autoscaling/v1");
    const asV2 = await server.call("GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/h");
    assert.equal(asV2.json["apiVersion"], "autoscaling/v2");
    assert.deepEqual((asV2.json["spec"] as Json)["metrics"], [
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } },
    ]);
    const listedV1 = await server.call("GET", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers");
    const item = (listedV1.json["items"] as Json[])[0];
    assert.equal(item?.["apiVersion"], "autoscaling/v1");
    assert.equal((item?.["spec"] as Json)["targetCPUUtilizationPercentage"], 50);
    assert.equal((item?.["metadata"] as Json)["resourceVersion"], (asV2.json["metadata"] as Json)["resourceVersion"]);
  });

  it("converts watch events for a version served from another's storage", async () => {
    const controller = new AbortController();
    const reader = new WatchReader(
      await server.raw("GET", `/apis/events.orch.io/v1/namespaces/default/events?watch=1&resourceVersion=${server.storage.currentRevision()}`, {
        signal: controller.signal,
      }),
    );
    await server.call("POST", "/api/v1/namespaces/default/events", {
      body: { metadata: { name: "ev1" }, involvedObject: { kind: "Pod", name: "p" }, message: "hello", reason: "Test" },
    });
    const [event] = await reader.next(1);
    assert.equal(event?.object["apiVersion"], "events.orch.io/v1");
    assert.equal(event?.object["note"], "hello");
    assert.deepEqual(event?.object["regarding"], { kind: "Pod", name: "p" });
    controller.abort();
    await reader.close();
  });

  it("warns on every request to a deprecated version, naming the replacement", async () => {
    const jobTemplate = { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } };
    const response = await server.call("POST", "/apis/batch/v1beta1/namespaces/default/cronjobs", {
      body: { metadata: { name: "c" }, spec: { schedule: "* * * * *", jobTemplate } },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(response.headers["warning"], ['299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"']);
    const stable = await server.call("GET", "/apis/batch/v1/namespaces/default/cronjobs/c");
    assert.equal(stable.json["apiVersion"], "batch/v1");
    assert.equal(stable.headers["warning"], undefined);
  });

  it("does not serve a group version turned off by --runtime-config, nor list it in discovery", async () => {
    assert.equal((await server.call("GET", "/apis/flowcontrol.apiserver.orch.io/v1/flowschemas")).status, 404);
    const groups = await server.call("GET", "/apis");
    const names = (groups.json["groups"] as Json[]).map((group) => group["name"]);
    assert.ok(!names.includes("flowcontrol.apiserver.orch.io"));
    assert.ok(names.includes("apps") && names.includes("networking.orch.io"));
  });

  it("prefers the stable version of a group in discovery", async () => {
    const group = await server.call("GET", "/apis/batch");
    assert.deepEqual(group.json["preferredVersion"], { groupVersion: "batch/v1", version: "v1" });
  });
});

describe("objects created through a deprecated version can be written back through the storage version", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("an events/v1beta1 Event without regarding reads and writes back as core v1 (involvedObject {}) and as events/v1", async () => {
    const created = await server.call("POST", "/apis/events.orch.io/v1beta1/namespaces/default/events", {
      body: {
        apiVersion: "events.orch.io/v1beta1",
        kind: "Event",
        metadata: { name: "no-regarding" },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "example.com/c",
        reportingInstance: "i",
        action: "Act",
        reason: "Why",
        type: "Normal",
      },
    });
    assert.equal(created.status, 201, created.text);
    const core = await server.call("GET", "/api/v1/namespaces/default/events/no-regarding");
    const written = await server.call("PUT", "/api/v1/namespaces/default/events/no-regarding", { body: core.json });
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(written.json["involvedObject"], {});
    const v1 = await server.call("GET", "/apis/events.orch.io/v1/namespaces/default/events/no-regarding");
    assert.equal((await server.call("PUT", "/apis/events.orch.io/v1/namespaces/default/events/no-regarding", { body: v1.json })).status, 200);
  });

  it("a v1beta1 webhook configuration with sideEffects Unknown can be updated through v1, but a v1 create with it is refused", async () => {
    const body = {
      kind: "ValidatingWebhookConfiguration",
      webhooks: [{ name: "a.example.com", clientConfig: { url: "https://hooks.example.com/" }, sideEffects: "Unknown" }],
    };
    const created = await server.call("POST", "/apis/admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations", {
      body: { ...body, apiVersion: "admissionregistration.orch.io/v1beta1", metadata: { name: "legacy" } },
    });
    assert.equal(created.status, 201, created.text);
    const v1 = await server.call("GET", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations/legacy");
    assert.equal((v1.json["webhooks"] as { sideEffects: string }[])[0]?.sideEffects, "Unknown");
    const labelled = { ...v1.json, metadata: { ...(v1.json["metadata"] as object), labels: { team: "a" } } };
    const updated = await server.call("PUT", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations/legacy", { body: labelled });
    assert.equal(updated.status, 200, updated.text);
    const fresh = await server.call("POST", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations", {
      body: {
        ...body,
        apiVersion: "admissionregistration.orch.io/v1",
        metadata: { name: "fresh" },
        webhooks: [{ ...body.webhooks[0], admissionReviewVersions: ["v1"] }],
      },
    });
    assert.equal(fresh.status, 422);
    assert.match(String(fresh.json["message"]), /sideEffects: Unsupported value: "Unknown"/);
  });
});
