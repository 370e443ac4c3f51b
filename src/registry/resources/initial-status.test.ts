import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const selector = { matchLabels: { app: "s" } };
const template = { metadata: { labels: { app: "s" } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } };

describe("initial status: the counts kube's Go types always write", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  const cases: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    ["ReplicationController", "/api/v1/namespaces/default/replicationcontrollers", { selector: { app: "s" }, template }, { replicas: 0 }],
    ["ReplicaSet", "/apis/apps/v1/namespaces/default/replicasets", { selector, template }, { replicas: 0 }],
    ["StatefulSet", "/apis/apps/v1/namespaces/default/statefulsets", { selector, template, serviceName: "s" }, { replicas: 0, availableReplicas: 0 }],
    [
      "DaemonSet",
      "/apis/apps/v1/namespaces/default/daemonsets",
      { selector, template },
      { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    ],
    [
      "PodDisruptionBudget",
      "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
      { selector, minAvailable: 1 },
      { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    ],
  ];
  for (const [kind, path, spec, status] of cases) {
    it(`${kind}: a new one has ${JSON.stringify(status)}, whatever status the create sent`, async () => {
      const created = await server.call("POST", path, { body: { metadata: { name: "s" }, spec, status: { replicas: 7 } } });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.json["status"], status);
      assert.deepEqual((await server.call("GET", `${path}/s`)).json["status"], status);
    });
  }

  it("HorizontalPodAutoscaler: v2 writes desiredReplicas and currentMetrics: null, v1 both counts, whichever version created it", async () => {
    const target = { apiVersion: "apps/v1", kind: "Deployment", name: "s" };
    const v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    const v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
    const byV2 = await server.call("POST", v2, { body: { metadata: { name: "h2" }, spec: { maxReplicas: 2, scaleTargetRef: target } } });
    assert.deepEqual(byV2.json["status"], { desiredReplicas: 0, currentMetrics: null });
    const byV1 = await server.call("POST", v1, { body: { metadata: { name: "h1" }, spec: { maxReplicas: 2, scaleTargetRef: target } } });
    assert.deepEqual(byV1.json["status"], { currentReplicas: 0, desiredReplicas: 0 });
    for (const name of ["h1", "h2"]) {
      assert.deepEqual((await server.call("GET", `${v2}/${name}`)).json["status"], { desiredReplicas: 0, currentMetrics: null }, `${name} as v2`);
      const asV1 = (await server.call("GET", `${v1}/${name}`)).json["status"] as Record<string, unknown>;
      assert.deepEqual({ ...asV1 }, { currentReplicas: 0, desiredReplicas: 0 }, `${name} as v1`);
    }
  });
});
