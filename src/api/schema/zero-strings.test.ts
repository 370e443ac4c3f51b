import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { KUBERNETES_PROFILE } from "../profile.js";

describe("empty non-pointer strings are defaulted as kube's Go zero values (Helm renders them)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await server.stop();
  });

  const labels = { app: "e" };
  const podTemplate = (spec: Record<string, unknown>): Record<string, unknown> => ({ metadata: { labels }, spec });

  it('accepts "" for service, container, pod and workload enums and stores their defaults', async () => {
    const service = await server.call("POST", "/api/v1/namespaces/default/services", {
      body: {
        metadata: { name: "empties" },
        spec: { type: "", sessionAffinity: "", externalTrafficPolicy: "", selector: labels, ports: [{ port: 80, protocol: "" }] },
      },
    });
    assert.equal(service.status, 201, service.text);
    const serviceSpec = service.json["spec"] as Record<string, unknown>;
    assert.deepEqual([serviceSpec["type"], serviceSpec["sessionAffinity"], serviceSpec["externalTrafficPolicy"]], ["ClusterIP", "None", undefined]);
    assert.equal((serviceSpec["ports"] as Record<string, unknown>[])[0]?.["protocol"], "TCP");
    const nodePort = await server.call("POST", "/api/v1/namespaces/default/services", {
      body: { metadata: { name: "empties-np" }, spec: { type: "NodePort", externalTrafficPolicy: "", selector: labels, ports: [{ port: 80 }] } },
    });
    assert.equal(nodePort.status, 201, nodePort.text);
    assert.equal((nodePort.json["spec"] as Record<string, unknown>)["externalTrafficPolicy"], "Cluster");

    const deployment = await server.call("POST", "/apis/apps/v1/namespaces/default/deployments", {
      body: {
        metadata: { name: "empties" },
        spec: {
          selector: { matchLabels: labels },
          strategy: { type: "" },
          template: podTemplate({
            restartPolicy: "",
            dnsPolicy: "",
            schedulerName: "",
            containers: [
              {
                name: "e",
                image: "nginx:1.25",
                imagePullPolicy: "",
                terminationMessagePolicy: "",
                terminationMessagePath: "",
                ports: [{ containerPort: 80, protocol: "" }],
                readinessProbe: { httpGet: { path: "/", port: 80, scheme: "" } },
              },
            ],
          }),
        },
      },
    });
    assert.equal(deployment.status, 201, deployment.text);
    const spec = deployment.json["spec"] as { strategy: Record<string, unknown>; template: { spec: Record<string, unknown> } };
    assert.deepEqual(spec.strategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    const pod = spec.template.spec;
    assert.deepEqual([pod["restartPolicy"], pod["dnsPolicy"], pod["schedulerName"]], ["Always", "ClusterFirst", "default-scheduler"]);
    const container = (pod["containers"] as Record<string, unknown>[])[0] ?? {};
    assert.deepEqual(
      [container["imagePullPolicy"], container["terminationMessagePolicy"], container["terminationMessagePath"]],
      ["IfNotPresent", "File", "/dev/termination-log"],
    );

    const statefulSet = await server.call("POST", "/apis/apps/v1/namespaces/default/statefulsets", {
      body: {
        metadata: { name: "empties" },
        spec: {
          serviceName: "e",
          podManagementPolicy: "",
          updateStrategy: { type: "" },
          selector: { matchLabels: labels },
          template: podTemplate({ containers: [{ name: "e", image: "x" }] }),
        },
      },
    });
    assert.equal(statefulSet.status, 201, statefulSet.text);
    const statefulSpec = statefulSet.json["spec"] as Record<string, Record<string, unknown>>;
    assert.deepEqual([statefulSpec["podManagementPolicy"], statefulSpec["updateStrategy"]?.["type"]], ["OrderedReady", "RollingUpdate"]);
    const cronJob = await server.call("POST", "/apis/batch/v1/namespaces/default/cronjobs", {
      body: {
        metadata: { name: "empties" },
        spec: {
          schedule: "*/5 * * * *",
          concurrencyPolicy: "",
          jobTemplate: { spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "e", image: "x" }] } } } },
        },
      },
    });
    assert.equal(cronJob.status, 201, cronJob.text);
    assert.equal((cronJob.json["spec"] as Record<string, unknown>)["concurrencyPolicy"], "Allow");
  });

  it("reads a null in a map of strings (a YAML key left empty) as Go's \"\", as kube's decoding does", async () => {
    const map = await server.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name: "nulls", labels: { tier: null }, annotations: { note: null } }, data: { SOME_KEY: null, OTHER: "x" } },
    });
    assert.equal(map.status, 201, map.text);
    assert.deepEqual(map.json["data"], { SOME_KEY: "", OTHER: "x" });
    const metadata = map.json["metadata"] as Record<string, unknown>;
    assert.deepEqual([metadata["labels"], metadata["annotations"]], [{ tier: "" }, { note: "" }]);
  });

  it('keeps refusing "" where kube\'s field is a pointer (PVC volumeMode)', async () => {
    const claim = await server.call("POST", "/api/v1/namespaces/default/persistentvolumeclaims", {
      body: { metadata: { name: "empties" }, spec: { accessModes: ["ReadWriteOnce"], volumeMode: "", resources: { requests: { storage: "1Gi" } } } },
    });
    assert.equal(claim.status, 422, claim.text);
  });
});
