import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";

/** etcd's count of the Range calls it answered (its /metrics). */
async function ranges(cluster: EtcdCluster): Promise<number> {
  const text = await (await fetch(`${cluster.endpoints[0] ?? ""}/metrics`)).text();
  const line = text
    .split("\n")
    .find((entry) => entry.startsWith("grpc_server_handled_total{") && entry.includes('grpc_method="Range"') && entry.includes('grpc_code="OK"'));
  return Number(line?.slice(line.lastIndexOf(" ") + 1) ?? 0);
}

// kube's cached existing object: an update starts from the value the store last saw, and a stale
// one (another server wrote since) never decides the answer.
describe("EtcdStorage.guaranteedUpdate from the last value it saw", { timeout: 60_000 }, () => {
  let cluster: EtcdCluster;
  let mine: EtcdStorage;
  let theirs: EtcdStorage;
  before(async () => {
    cluster = await startEtcdCluster();
    mine = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/registry" });
    theirs = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/registry" });
  });
  after(async () => {
    await mine?.close();
    await theirs?.close();
    await cluster?.stop();
  });

  it("an update of a key this store just wrote reads nothing from etcd", async () => {
    await mine.create("/configmaps/ns/own", '{"n":1}');
    const before = await ranges(cluster);
    const result = await mine.guaranteedUpdate("/configmaps/ns/own", (current) => JSON.stringify({ n: Number(JSON.parse(current?.value ?? "{}").n) + 1 }));
    assert.equal(result.value?.value, '{"n":2}');
    const again = await mine.guaranteedUpdate("/configmaps/ns/own", (current) => JSON.stringify({ n: Number(JSON.parse(current?.value ?? "{}").n) + 1 }));
    assert.equal(again.value?.value, '{"n":3}');
    assert.equal(again.value?.createRevision, result.value?.createRevision);
    assert.equal((await ranges(cluster)) - before, 0, "no etcd Range for two updates after the store's own writes");
    assert.equal((await mine.get("/configmaps/ns/own")).value, '{"n":3}');
  });

  it("a stale remembered value costs a retry on the live one, never a lost write", async () => {
    await mine.create("/configmaps/ns/stale", '{"n":1}');
    await theirs.guaranteedUpdate("/configmaps/ns/stale", () => '{"n":10}');
    const seen: string[] = [];
    const result = await mine.guaranteedUpdate("/configmaps/ns/stale", (current) => {
      seen.push(current?.value ?? "");
      return JSON.stringify({ n: Number(JSON.parse(current?.value ?? "{}").n) + 1 });
    });
    assert.deepEqual(seen, ['{"n":1}', '{"n":10}'], "first the remembered value, then the live one");
    assert.equal(result.value?.value, '{"n":11}');
    assert.equal((await theirs.get("/configmaps/ns/stale")).value, '{"n":11}');
  });

  it("nothing to change against a stale value is checked against etcd before it is the answer", async () => {
    const created = await mine.create("/configmaps/ns/noop", '{"v":"a"}');
    await theirs.guaranteedUpdate("/configmaps/ns/noop", () => '{"v":"b"}');
    // Same as the remembered value, but not as the live one: it must be written.
    const result = await mine.guaranteedUpdate("/configmaps/ns/noop", () => '{"v":"a"}');
    assert.ok(result.revision > created, "written, not answered as unchanged");
    assert.equal((await theirs.get("/configmaps/ns/noop")).value, '{"v":"a"}');
    // And a true no-op after the confirming read writes nothing.
    const unchanged = await mine.guaranteedUpdate("/configmaps/ns/noop", () => '{"v":"a"}');
    assert.equal(unchanged.revision, result.revision);
  });

  it("tryUpdate's refusal of a stale value is retried on the live one; a refusal of the live one is the answer", async () => {
    await mine.create("/configmaps/ns/precondition", '{"rv":"1"}');
    await theirs.guaranteedUpdate("/configmaps/ns/precondition", () => '{"rv":"2"}');
    // A precondition that only the live value meets (a PUT carrying the resourceVersion it read).
    const expect = (wanted: string) => (current: { readonly value: string } | undefined) => {
      if (current?.value !== wanted) throw new Error(`conflict: have ${current?.value}`);
      return '{"rv":"3"}';
    };
    const result = await mine.guaranteedUpdate("/configmaps/ns/precondition", expect('{"rv":"2"}'));
    assert.equal(result.value?.value, '{"rv":"3"}');
    await assert.rejects(mine.guaranteedUpdate("/configmaps/ns/precondition", expect('{"rv":"2"}')), /conflict: have \{"rv":"3"\}/);
  });

  it("a key another server deleted is not found, whatever this store remembered", async () => {
    await mine.create("/configmaps/ns/gone", "{}");
    await theirs.delete("/configmaps/ns/gone");
    await assert.rejects(
      mine.guaranteedUpdate("/configmaps/ns/gone", () => '{"x":1}'),
      (error: unknown) => error instanceof Error && "code" in error && error.code === "KeyNotFound",
    );
    const recreated = await mine.guaranteedUpdate("/configmaps/ns/gone", () => '{"x":2}', { ignoreNotFound: true });
    assert.equal(recreated.created, true);
  });
});
