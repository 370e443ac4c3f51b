// The server on etcd (--storage-backend etcd3) with real kubectl: create/get/list/watch, objects
// at kube's key layout with resourceVersion = etcd revision, and /readyz following etcd's health.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { EtcdStorage } from "../src/storage/etcd/etcd-storage.js";
import { kubeStorageEncoding } from "../src/codec/protobuf/storage-values.js";
import { ORCH_PROFILE } from "../src/api/profile.js";
import { request } from "./helpers/http.js";
import { type Kubectl, kubectlFor, type KubectlResult } from "./helpers/kubectl.js";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("the server on etcd (--storage-backend etcd3) with kubectl 1.30", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  let kubectl: Kubectl;
  let raw: EtcdStorage;

  before(async () => {
    etcd = await startEtcdCluster();
    server = await startTestServer({
      storageBackend: "etcd3",
      etcdServers: etcd.endpoints,
      etcdPrefix: "/registry",
      compactionIntervalMs: 0,
      requestTimeoutMs: 5_000,
    });
    kubectl = kubectlFor(server.server.kubeconfigPath, server.dataDir);
    raw = await EtcdStorage.open({ endpoints: etcd.endpoints, values: kubeStorageEncoding(ORCH_PROFILE) });
  });

  after(async () => {
    await raw?.close();
    await server?.close();
    await etcd?.stop();
  });

  it("creates, gets, lists and watches config maps stored in etcd under the prefix", async () => {
    const watch = kubectl.spawn(["get", "configmaps", "-n", "default", "-w", "-o", "name"]);
    try {
      ok(await kubectl(["create", "configmap", "first", "--from-literal=a=b"]));
      const object = JSON.parse(ok(await kubectl(["get", "configmap", "first", "-o", "json"]))) as {
        metadata: { resourceVersion: string };
        data: Record<string, string>;
      };
      assert.deepEqual(object.data, { a: "b" });
      // The object is in etcd under the prefix; its resourceVersion is etcd's mod revision.
      const stored = await raw.get("/registry/configmaps/default/first");
      assert.equal(String(stored.modRevision), object.metadata.resourceVersion);
      assert.equal((JSON.parse(stored.value) as { data: Record<string, string> }).data.a, "b");

      ok(await kubectl(["create", "configmap", "second", "--from-literal=c=d"]));
      const listed = ok(await kubectl(["get", "configmaps", "-o", "name"]));
      assert.match(listed, /configmap\/first/);
      assert.match(listed, /configmap\/second/);
      await waitFor(() => watch.stdout().includes("configmap/second"), { what: "the watch to show configmap/second", timeoutMs: 15_000 });
      ok(await kubectl(["delete", "configmap", "first"]));
      await assert.rejects(raw.get("/registry/configmaps/default/first"), /KeyNotFound/);
    } finally {
      await watch.stop();
    }
  });

  it("/readyz fails within 2 s while etcd is down, requests answer 503/504 promptly, and both recover by themselves", async () => {
    const member = etcd.members[0];
    assert.ok(member !== undefined);
    // kube lists the store's liveness check and its readiness check, in that order.
    const healthy = await request(server.admin, "GET", "/readyz?verbose");
    assert.equal(healthy.status, 200);
    assert.match(healthy.body, /\[\+\]etcd ok\n\[\+\]etcd-readiness ok\n/);
    assert.equal((await request(server.admin, "GET", "/readyz/etcd")).body, "ok");
    await member.kill();
    const started = Date.now();
    const readyz = await request(server.admin, "GET", "/readyz?verbose");
    assert.equal(readyz.status, 500, readyz.body);
    assert.match(readyz.body, /\[-\]etcd failed: reason withheld\n\[-\]etcd-readiness failed/);
    assert.ok(Date.now() - started < 2_000, `readyz took ${Date.now() - started} ms`);

    const writeStarted = Date.now();
    const write = await request(server.admin, "POST", "/api/v1/namespaces/default/configmaps", {
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "during-outage" } }),
    });
    assert.ok([503, 504].includes(write.status), `write during the outage answered ${write.status}: ${write.body}`);
    assert.ok(Date.now() - writeStarted < 6_000, `the write took ${Date.now() - writeStarted} ms`);

    await member.restart();
    await waitFor(async () => (await request(server.admin, "GET", "/readyz")).status === 200, { what: "readyz to recover", timeoutMs: 20_000 });
    ok(await kubectl(["create", "configmap", "after-outage", "--from-literal=e=f"]));
    // The list is served from the watch cache, which follows etcd again.
    await waitFor(async () => ok(await kubectl(["get", "configmaps", "-o", "name"])).includes("configmap/after-outage"), {
      what: "the list to show the write made after the outage",
      timeoutMs: 15_000,
    });
  });
});
