import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_MAX_REQUEST_BYTES, isStorageError, MemoryStorage, SizeLimitedStorage } from "../storage/index.js";
import { inProcessServer } from "../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const MiB = 1024 * 1024;

describe("size limits: request bodies (3 MiB) and stored objects (etcd's 1.5 MiB)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  const configMap = (name: string, bytes: number) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "x".repeat(bytes) } });
  // A ClusterRole: unlike config maps (1 MiB of data at most), nothing limits its size but the store.
  const ROLES = "/apis/rbac.authorization.orch.io/v1/clusterroles";
  const role = (name: string, bytes: number) => ({
    apiVersion: "rbac.authorization.orch.io/v1",
    kind: "ClusterRole",
    metadata: { name },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"], resourceNames: ["x".repeat(bytes)] }],
  });

  it("a body over 3 MiB is 413 RequestEntityTooLarge with kube's message", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("size-body", 3 * MiB) });
    assert.equal(response.status, 413);
    assert.equal(response.json["reason"], "RequestEntityTooLarge");
    assert.equal(response.json["message"], "Request entity too large: limit is 3145728");
  });

  it("an object under the body limit but over 1.5 MiB stored is refused with 413 and etcd's message", async () => {
    const response = await server.call("POST", ROLES, { body: role("size-object", 1.6 * MiB) });
    assert.equal(response.status, 413);
    assert.equal(response.json["reason"], "RequestEntityTooLarge");
    assert.equal(response.json["message"], "etcdserver: request is too large");
    assert.equal((await server.call("GET", `${ROLES}/size-object`)).status, 404, "nothing was stored");
  });

  it("an object just under the limit is stored", async () => {
    const response = await server.call("POST", ROLES, { body: role("size-fits", 1.4 * MiB) });
    assert.equal(response.status, 201);
  });

  it("an update that grows an object over the limit is refused and leaves it as it was", async () => {
    assert.equal((await server.call("POST", ROLES, { body: role("size-grown", 10) })).status, 201);
    const patched = await server.call("PATCH", `${ROLES}/size-grown`, {
      body: { rules: role("size-grown", 1.6 * MiB).rules },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 413);
    assert.equal(patched.json["message"], "etcdserver: request is too large");
    const current = await server.call("GET", `${ROLES}/size-grown`);
    assert.deepEqual(current.json["rules"], role("size-grown", 10).rules);
  });
});

describe("SizeLimitedStorage", () => {
  it("counts key and value bytes (UTF-8) against the limit, for creates and updates; nothing is written", async () => {
    const inner = new MemoryStorage();
    const storage = new SizeLimitedStorage(inner, 16);
    await storage.create("/k", "0123456789abcd");
    await assert.rejects(storage.create("/k2", "0123456789abcde"), (error: unknown) => isStorageError(error, "RequestTooLarge"));
    await assert.rejects(storage.create("/k3", "ééééééé"), (error: unknown) => isStorageError(error, "RequestTooLarge"), "7 characters, 14 bytes");
    await assert.rejects(
      storage.guaranteedUpdate("/k", () => "0123456789abcdef"),
      (error: unknown) => isStorageError(error, "RequestTooLarge"),
    );
    assert.equal((await inner.get("/k")).value, "0123456789abcd");
    assert.equal(await inner.count("/k"), 1);
    await storage.close();
  });

  it("defaults to etcd's 1.5 MiB", () => {
    assert.equal(DEFAULT_MAX_REQUEST_BYTES, 1572864);
  });
});
