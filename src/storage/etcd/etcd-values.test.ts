import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { KUBERNETES_PROFILE } from "../../api/profile.js";
import { kubeStorageEncoding } from "../../codec/protobuf/storage-values.js";
import { EtcdClient } from "./etcd-client.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";

describe("EtcdStorage with kube's storage encoding", { timeout: 60_000 }, () => {
  let cluster: EtcdCluster;
  let storage: EtcdStorage;
  let client: EtcdClient;

  before(async () => {
    cluster = await startEtcdCluster();
    storage = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/registry", values: kubeStorageEncoding(KUBERNETES_PROFILE) });
    client = new EtcdClient({ endpoints: cluster.endpoints });
  });

  after(async () => {
    await storage?.close();
    client?.close();
    await cluster?.stop();
  });

  const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default", labels: { a: "1", b: "2" } }, data: { k: "v" } };

  test("writes protobuf bytes at the prefixed key and reads JSON back through get, list and watch", async () => {
    const watched = new AbortController();
    const events = storage.watch("/configmaps/", storage.currentRevision(), watched.signal)[Symbol.asyncIterator]();
    const revision = await storage.create("/configmaps/default/c", JSON.stringify(object));
    const raw = (await client.range({ key: Buffer.from("/registry/configmaps/default/c") }, "")).kvs[0];
    assert.equal(
      Buffer.from(raw?.value ?? [])
        .subarray(0, 4)
        .toString("latin1"),
      "k8s\0",
    );
    assert.deepEqual(JSON.parse((await storage.get("/configmaps/default/c")).value), object);
    assert.deepEqual(
      (await storage.list("/configmaps/")).items.map((item) => JSON.parse(item.value)),
      [object],
    );
    const event = await events.next();
    watched.abort();
    assert.equal(event.value?.revision, revision);
    assert.deepEqual(JSON.parse(event.value?.value ?? "null"), object);
  });

  test("an update to the same object in another key order writes nothing (the stored bytes compare equal)", async () => {
    const before = await storage.get("/configmaps/default/c");
    const reordered = JSON.stringify({ data: object.data, metadata: { ...object.metadata, labels: { b: "2", a: "1" } }, kind: "ConfigMap", apiVersion: "v1" });
    const result = await storage.guaranteedUpdate("/configmaps/default/c", () => reordered);
    assert.equal(result.revision, before.modRevision);
    assert.equal((await storage.get("/configmaps/default/c")).modRevision, before.modRevision);
    const changed = await storage.guaranteedUpdate("/configmaps/default/c", () => JSON.stringify({ ...object, data: { k: "w" } }));
    assert.ok(changed.revision > before.modRevision);
  });

  test("the watch event of this server's own write carries the written text; another writer's bytes are decoded", async () => {
    const watched = new AbortController();
    const events = storage.watch("/configmaps/", storage.currentRevision(), watched.signal)[Symbol.asyncIterator]();
    // Key order unlike the decoder's: a decode of etcd's bytes would give another text.
    const written = JSON.stringify({ data: { k: "own" }, metadata: { namespace: "default", name: "own" }, kind: "ConfigMap", apiVersion: "v1" });
    const decodedForm = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "own", namespace: "default" }, data: { k: "own" } });
    await storage.create("/configmaps/default/own", written);
    assert.equal((await events.next()).value?.value, written);
    assert.equal((await storage.get("/configmaps/default/own")).value, decodedForm, "a read decodes etcd's bytes");
    // Another server writes new bytes at the key: the event is etcd's bytes decoded.
    const stored = (await client.range({ key: Buffer.from("/registry/configmaps/default/own") }, "")).kvs[0];
    const foreign = kubeStorageEncoding(KUBERNETES_PROFILE).encode("/configmaps/default/own", JSON.stringify({ ...JSON.parse(written), data: { k: "other" } }));
    await client.txn({ compare: [], success: [{ requestPut: { key: Buffer.from(stored?.key ?? []), value: foreign } }], failure: [] }, "");
    const event = (await events.next()).value;
    watched.abort();
    assert.equal(event?.type, "MODIFIED");
    assert.equal(event?.value, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "own", namespace: "default" }, data: { k: "other" } }));
  });
});
