import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";

describe("ResourceQuota's container constraint (in process)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
    const namespace = await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "declared" } } });
    assert.equal(namespace.status, 201, namespace.text);
    const quota = {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "compute" },
      spec: { hard: { "requests.cpu": "4", "limits.memory": "1Gi", pods: "10" } },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/declared/resourcequotas", { body: quota })).status, 201);
  });
  after(() => server.stop());

  const create = (name: string, containers: readonly Record<string, unknown>[]) =>
    server.call("POST", "/api/v1/namespaces/declared/pods", { body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers } } });

  it("names each undeclared resource with the containers that lack it, as kube does", async () => {
    const refused = await create("mixed", [
      { name: "app", image: "i", resources: { requests: { cpu: "100m" } } },
      { name: "side", image: "i" },
      { name: "extra", image: "i", resources: { limits: { memory: "10Mi" } } },
    ]);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json["message"],
      'pods "mixed" is forbidden: failed quota: compute: must specify limits.memory for: app,side; requests.cpu for: extra,side',
    );
  });

  it("a pod whose pod-level sum covers a resource is still refused when one container lacks it", async () => {
    const refused = await create("partial", [
      { name: "a", image: "i", resources: { requests: { cpu: "100m" }, limits: { memory: "10Mi" } } },
      { name: "b", image: "i", resources: { limits: { memory: "10Mi" } } },
    ]);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json["message"], 'pods "partial" is forbidden: failed quota: compute: must specify requests.cpu for: b');
    const admitted = await create("complete", [{ name: "a", image: "i", resources: { requests: { cpu: "100m" }, limits: { memory: "10Mi" } } }]);
    assert.equal(admitted.status, 201, admitted.text);
  });
});
