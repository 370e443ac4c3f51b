// Consistent GETs (resourceVersion unset) on etcd are served from the watch cache once it has
// reached etcd's current revision: two in-process servers share one etcd member, one writes, the
// other reads at once and must see every write (and every delete) made before its GET. GETs with
// a resourceVersion ("0": no freshness asked; N: not older than N) are served from the cache as kube's cacher
// serves them, N once the cache reflects it (504 for a revision etcd has not reached).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EtcdCluster, startEtcdCluster } from "../src/storage/etcd/etcd-member.js";
import { EtcdClient } from "../src/storage/etcd/etcd-client.js";
import { EtcdStorage } from "../src/storage/etcd/etcd-storage.js";
import { inProcessServer } from "../src/testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
const metadataOf = (json: Record<string, unknown>): Record<string, unknown> => json["metadata"] as Record<string, unknown>;

describe("consistent GETs from the watch cache on etcd, across two servers", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let writer: Server;
  let reader: Server;
  before(async () => {
    etcd = await startEtcdCluster();
    const open = (): EtcdStorage => EtcdStorage.connect({ endpoints: etcd.endpoints, prefix: "/registry" });
    writer = await inProcessServer({ storage: open(), controllers: [] });
    reader = await inProcessServer({ storage: open(), controllers: [] });
    const namespace = await writer.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "reads" } } });
    assert.equal(namespace.status, 201, namespace.text);
  });
  after(async () => {
    await reader?.stop();
    await writer?.stop();
    await etcd?.stop();
  });

  it("a GET through the other server right after a create, an update and a delete sees each of them", async () => {
    for (let index = 0; index < 10; index++) {
      const path = `/api/v1/namespaces/reads/configmaps/item-${index}`;
      const created = await writer.call("POST", "/api/v1/namespaces/reads/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `item-${index}` }, data: { step: "created" } },
      });
      assert.equal(created.status, 201, created.text);
      const read = await reader.call("GET", path);
      assert.equal(read.status, 200, read.text);
      assert.equal(metadataOf(read.json)["resourceVersion"], metadataOf(created.json)["resourceVersion"]);

      const updated = await writer.call("PATCH", path, { body: { data: { step: "updated" } }, headers: { "content-type": "application/merge-patch+json" } });
      assert.equal(updated.status, 200, updated.text);
      const reread = await reader.call("GET", path);
      assert.deepEqual(reread.json["data"], { step: "updated" });
      assert.equal(metadataOf(reread.json)["resourceVersion"], metadataOf(updated.json)["resourceVersion"]);

      assert.equal((await writer.call("DELETE", path)).status, 200);
      const gone = await reader.call("GET", path);
      assert.equal(gone.status, 404, gone.text);
      assert.equal(gone.json["reason"], "NotFound");
    }
  });

  /** Range calls etcd has answered so far (its own /metrics). */
  const ranges = async (): Promise<number> => {
    const text = await (await fetch(`${etcd.endpoints[0] ?? ""}/metrics`)).text();
    const line = text
      .split("\n")
      .find((entry) => entry.startsWith("grpc_server_handled_total{") && entry.includes('grpc_method="Range"') && entry.includes('grpc_code="OK"'));
    return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
  };

  it("64 concurrent GETs share a few etcd revision reads instead of one read each", async () => {
    const created = await writer.call("POST", "/api/v1/namespaces/reads/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared" } },
    });
    assert.equal(created.status, 201, created.text);
    const before = await ranges();
    const replies = await Promise.all(Array.from({ length: 64 }, () => reader.call("GET", "/api/v1/namespaces/reads/configmaps/shared")));
    const used = (await ranges()) - before;
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    // Reads from storage would take 64 Range calls; shared revision reads take a handful (other
    // parts of the two servers, the identity lease and the like, may read meanwhile too).
    assert.ok(used < 16, `${used} etcd Range calls for 64 concurrent GETs`);

    // resourceVersion=0 (no freshness asked): the cache answers without asking etcd at all.
    const beforeAny = await ranges();
    const anyReplies = await Promise.all(Array.from({ length: 64 }, () => reader.call("GET", "/api/v1/namespaces/reads/configmaps/shared?resourceVersion=0")));
    const usedAny = (await ranges()) - beforeAny;
    for (const reply of anyReplies) assert.equal(reply.status, 200, reply.text);
    assert.ok(usedAny < 4, `${usedAny} etcd Range calls for 64 GETs at resourceVersion=0`);
    const missing = await reader.call("GET", "/api/v1/namespaces/reads/configmaps/never-made?resourceVersion=0");
    assert.equal(missing.status, 404, missing.text);
  });

  it("a create reads no etcd revision for quota admission (the quotas are read from the cache as kube's informer)", async () => {
    const before = await ranges();
    for (let index = 0; index < 20; index++) {
      const created = await writer.call("POST", "/api/v1/namespaces/reads/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `quota-free-${index}` } },
      });
      assert.equal(created.status, 201, created.text);
    }
    const used = (await ranges()) - before;
    // One consistent quota list per create would read etcd's revision 20 times (one by one).
    assert.ok(used < 5, `${used} etcd Range calls for 20 creates`);
  });

  it("a GET with resourceVersion N through the other server waits for the cache to reach N, and 504s for a revision etcd has not reached", async () => {
    for (let index = 0; index < 5; index++) {
      const created = await writer.call("POST", "/api/v1/namespaces/reads/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `at-${index}` }, data: { step: "created" } },
      });
      assert.equal(created.status, 201, created.text);
      const version = String(metadataOf(created.json)["resourceVersion"]);
      const read = await reader.call("GET", `/api/v1/namespaces/reads/configmaps/at-${index}?resourceVersion=${version}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(metadataOf(read.json)["resourceVersion"], version);
    }
    // A revision made by a write outside the prefix sends the cache no event: the watch is asked
    // for progress, and the GET is answered once the cache knows it has reached that revision.
    const outside = new EtcdClient({ endpoints: etcd.endpoints });
    try {
      const put = await outside.txn(
        { compare: [], success: [{ requestPut: { key: Buffer.from("/elsewhere/key"), value: Buffer.from("x") } }], failure: [] },
        "",
      );
      const read = await reader.call("GET", `/api/v1/namespaces/reads/configmaps/at-0?resourceVersion=${put.header.revision}`);
      assert.equal(read.status, 200, read.text);
      const future = await reader.call("GET", `/api/v1/namespaces/reads/configmaps/at-0?resourceVersion=${put.header.revision + 1000}`);
      assert.equal(future.status, 504, future.text);
      assert.match(future.text, /Too large resource version/);
    } finally {
      outside.close();
    }
  });
});
