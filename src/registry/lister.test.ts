import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

describe("Registry.lister: admission's read of the watch cache", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    await server.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "lister" } } });
  });
  after(async () => {
    await server.stop();
  });

  it("lists an object written just before the call (the cache catches up first)", async () => {
    const lister = server.server.registry.lister("", "v1", "limitranges");
    const created = await server.call("POST", "/api/v1/namespaces/lister/limitranges", {
      body: { apiVersion: "v1", kind: "LimitRange", metadata: { name: "first" }, spec: { limits: [{ type: "Container", default: { cpu: "1" } }] } },
    });
    assert.equal(created.status, 201);
    const listed = await lister.list("lister");
    assert.deepEqual(
      listed.map((object) => object.metadata.name),
      ["first"],
    );
    assert.equal(listed[0]?.metadata.resourceVersion, (created.json["metadata"] as Record<string, unknown>)["resourceVersion"]);
    assert.deepEqual(await lister.list("default-nothing-here"), []);
  });

  it("listCached lists this server's write made just before the call", async () => {
    const lister = server.server.registry.lister("", "v1", "limitranges");
    const created = await server.call("POST", "/api/v1/namespaces/lister/limitranges", {
      body: { apiVersion: "v1", kind: "LimitRange", metadata: { name: "second" }, spec: { limits: [{ type: "Container", default: { cpu: "1" } }] } },
    });
    assert.equal(created.status, 201);
    const listed = await lister.listCached("lister");
    assert.deepEqual(listed.map((object) => object.metadata.name).sort(), ["first", "second"]);
    assert.deepEqual(await lister.listCached("default-nothing-here"), []);
  });

  it("gives one frozen object per stored version, and a new one after a change", async () => {
    const lister = server.server.registry.lister("", "v1", "limitranges");
    const first = lister.get("lister", "first");
    assert.ok(first !== undefined);
    assert.equal(lister.get("lister", "first"), first, "the same version is decoded once");
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.metadata) && Object.isFrozen(first["spec"]));
    assert.throws(() => {
      (first.metadata as { name?: string }).name = "changed";
    }, TypeError);
    const patched = await server.call("PATCH", "/api/v1/namespaces/lister/limitranges/first", {
      body: { metadata: { labels: { changed: "yes" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(patched.status, 200);
    const after = (await lister.list("lister"))[0];
    assert.notEqual(after, first);
    assert.equal(after?.metadata.labels?.["changed"], "yes");
    assert.equal(first.metadata.labels?.["changed"], undefined, "the old version is left as it was");
    assert.equal(lister.get("lister", "missing"), undefined);
  });
  it("keeps a namespace's list until the resource changes, then lists again", async () => {
    const lister = server.server.registry.lister("", "v1", "limitranges");
    const kept = await lister.list("lister");
    assert.equal(await lister.list("lister"), kept, "no change since: the same list");
    assert.ok(Object.isFrozen(kept));
    const elsewhere = await server.call("POST", "/api/v1/namespaces/default/limitranges", {
      body: { apiVersion: "v1", kind: "LimitRange", metadata: { name: "other" }, spec: { limits: [{ type: "Container", max: { cpu: "2" } }] } },
    });
    assert.equal(elsewhere.status, 201);
    const relisted = await lister.list("lister");
    assert.notEqual(relisted, kept, "a change of the resource drops the kept lists");
    assert.deepEqual(
      relisted.map((object) => object.metadata.name),
      kept.map((object) => object.metadata.name),
    );
    const names = async (): Promise<string[]> => (await lister.list("lister")).map((object) => object.metadata.name ?? "").sort();
    const before = kept.map((object) => object.metadata.name ?? "").sort();
    const created = await server.call("POST", "/api/v1/namespaces/lister/limitranges", {
      body: { apiVersion: "v1", kind: "LimitRange", metadata: { name: "kept-check" }, spec: { limits: [{ type: "Container", max: { cpu: "4" } }] } },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(await names(), [...before, "kept-check"].sort());
    const deleted = await server.call("DELETE", "/api/v1/namespaces/lister/limitranges/kept-check");
    assert.equal(deleted.status, 200);
    assert.deepEqual(await names(), before);
    assert.equal((await server.call("DELETE", "/api/v1/namespaces/default/limitranges/other")).status, 200);
  });
});
