import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { claimsOfPod } from "./storage-protection-controller.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const PVCS = "/api/v1/namespaces/default/persistentvolumeclaims";
const PODS = "/api/v1/namespaces/default/pods";

async function eventually(read: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await read()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return read();
}

describe("StorageObjectInUseProtection with the pvc-protection and pv-protection controllers", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("names the claims a pod uses, generic ephemeral volumes included", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: {
        volumes: [
          { name: "data", persistentVolumeClaim: { claimName: "claim-a" } },
          { name: "scratch", ephemeral: {} },
          { name: "cfg", configMap: {} },
        ],
      },
    };
    assert.deepEqual(claimsOfPod(pod), ["claim-a", "web-scratch"]);
  });

  it("keeps a deleted claim while a running pod uses it, and removes it once the pod is gone", async () => {
    const claim = await server.call("POST", PVCS, {
      body: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    });
    assert.equal(claim.status, 201, claim.text);
    assert.deepEqual((claim.json["metadata"] as Json)["finalizers"], ["orch.io/pvc-protection"]);
    const pod = await server.call("POST", PODS, {
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "user" },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }], volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] },
      },
    });
    assert.equal(pod.status, 201, pod.text);
    assert.equal((await server.call("DELETE", `${PVCS}/data`)).status, 200);
    // The controller has seen the deletion (the claim is terminating) and still keeps it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = await server.call("GET", `${PVCS}/data`);
    assert.equal(held.status, 200, "a claim in use stays");
    assert.ok((held.json["metadata"] as Json)["deletionTimestamp"] !== undefined);
    assert.equal((await server.call("DELETE", `${PODS}/user?gracePeriodSeconds=0`)).status, 200);
    assert.ok(await eventually(async () => (await server.call("GET", `${PVCS}/data`)).status === 404), "the unused claim goes");
  });

  it("keeps a deleted volume while it is Bound, and removes it once released", async () => {
    const created = await server.call("POST", "/api/v1/persistentvolumes", {
      body: {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: "pv-1" },
        spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv-1" } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json["metadata"] as Json)["finalizers"], ["orch.io/pv-protection"]);
    const setPhase = async (phase: string): Promise<void> => {
      const current = await server.call("GET", "/api/v1/persistentvolumes/pv-1");
      const answer = await server.call("PUT", "/api/v1/persistentvolumes/pv-1/status", { body: { ...current.json, status: { phase } } });
      assert.equal(answer.status, 200, answer.text);
    };
    await setPhase("Bound");
    assert.equal((await server.call("DELETE", "/api/v1/persistentvolumes/pv-1")).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await server.call("GET", "/api/v1/persistentvolumes/pv-1")).status, 200, "a bound volume stays");
    await setPhase("Released");
    assert.ok(await eventually(async () => (await server.call("GET", "/api/v1/persistentvolumes/pv-1")).status === 404), "the released volume goes");
  });
});
