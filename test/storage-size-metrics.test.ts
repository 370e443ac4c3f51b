import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sample } from "../src/testing/metrics-text.js";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { configMap, request } from "./helpers/http.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

/** Creates config maps with a 64 KiB value each, so the database file has to grow. */
async function fill(server: TestServer, prefix: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const created = await request(server.admin, "POST", "/api/v1/namespaces/default/configmaps", {
      body: configMap(`${prefix}-${index}`, { blob: "x".repeat(64 * 1024) }),
    });
    assert.equal(created.status, 201, created.body);
  }
}

async function storageSize(server: TestServer, cluster: string): Promise<number | undefined> {
  const text = (await request(server.admin, "GET", "/metrics")).body;
  assert.match(text, /# HELP apiserver_storage_size_bytes \[ALPHA\] Size of the storage database file physically allocated in bytes\./);
  return sample(text, "apiserver_storage_size_bytes", { storage_cluster_id: cluster });
}

describe("apiserver_storage_size_bytes", { timeout: 120_000 }, () => {
  it("SQLite: the database file's page_count × page_size, growing with what is stored", async () => {
    const server = await startTestServer({ storageBackend: "sqlite" });
    try {
      const before = await storageSize(server, "sqlite-0");
      assert.ok(before !== undefined && before > 0, `a size before: ${before}`);
      assert.equal(before % 512, 0, "whole pages");
      await fill(server, "sqlite-size", 40);
      const after = await storageSize(server, "sqlite-0");
      assert.ok(after !== undefined && after >= before + 40 * 64 * 1024, `${before} -> ${after}`);
    } finally {
      await server.close();
    }
  });

  it("memory: no sample (there is no database file)", async () => {
    const server = await startTestServer({ storageBackend: "memory" });
    try {
      const text = (await request(server.admin, "GET", "/metrics")).body;
      assert.equal(sample(text, "apiserver_storage_size_bytes"), undefined);
    } finally {
      await server.close();
    }
  });

  describe("etcd: the member's Status dbSize", () => {
    let etcd: EtcdCluster;
    let server: TestServer;
    before(async () => {
      etcd = await startEtcdCluster();
      server = await startTestServer({ storageBackend: "etcd3", etcdServers: etcd.endpoints, etcdPrefix: "/registry", compactionIntervalMs: 0 });
    });
    after(async () => {
      await server?.close();
      await etcd?.stop();
    });

    it("reports etcd's database size under storage_cluster_id etcd-0, growing with writes", async () => {
      const before = await storageSize(server, "etcd-0");
      assert.ok(before !== undefined && before > 0, `a size before: ${before}`);
      await fill(server, "etcd-size", 40);
      const after = await storageSize(server, "etcd-0");
      assert.ok(after !== undefined && after > before, `${before} -> ${after}`);
    });
  });
});
