import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { omitEmptyMetadataInPlace, type ApiObject } from "../api/object.js";
import { inProcessServer } from "../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const CONFIG_MAPS = "/api/v1/namespaces/default/configmaps";
const SMP = { "content-type": "application/strategic-merge-patch+json" };

describe("omitEmptyMetadataInPlace()", () => {
  it("drops empty or null labels, annotations, finalizers and owner references, and keeps the rest", () => {
    const object: ApiObject = {
      metadata: { name: "x", labels: {}, annotations: { a: "b" }, finalizers: [], ownerReferences: [], managedFields: [] },
    };
    object.metadata["annotations"] = null as unknown as Record<string, string>;
    omitEmptyMetadataInPlace(object);
    assert.deepEqual(object, { metadata: { name: "x", managedFields: [] } }, "an empty managedFields is a request to reset them: kept");
    const full: ApiObject = { metadata: { name: "y", labels: { a: "b" }, finalizers: ["f"] } };
    omitEmptyMetadataInPlace(full);
    assert.deepEqual(full, { metadata: { name: "y", labels: { a: "b" }, finalizers: ["f"] } });
  });
});

describe("empty metadata collections in writes (kube's omitempty)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
    const created = await server.call("POST", CONFIG_MAPS, { body: { metadata: { name: "plain", labels: {}, finalizers: [] }, data: { k: "v" } } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await server.stop();
  });

  it("a create with empty labels and finalizers stores neither", async () => {
    const metadata = (await server.call("GET", `${CONFIG_MAPS}/plain`)).json["metadata"] as Json;
    assert.equal("labels" in metadata, false);
    assert.equal("finalizers" in metadata, false);
  });

  it("a strategic merge patch of empty annotations (kubectl diff's dry run) changes nothing and echoes none", async () => {
    const before = (await server.call("GET", `${CONFIG_MAPS}/plain`)).json;
    for (const query of ["?dryRun=All&fieldManager=kubectl-client-side-apply", "?fieldManager=kubectl-client-side-apply"]) {
      const patched = await server.call("PATCH", `${CONFIG_MAPS}/plain${query}`, { body: { metadata: { annotations: {} } }, headers: SMP });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.json, before, `PATCH ${query}: the object as it was`);
    }
    assert.deepEqual((await server.call("GET", `${CONFIG_MAPS}/plain`)).json, before);
  });

  it("a JSON patch that empties the labels removes the key", async () => {
    await server.call("PATCH", `${CONFIG_MAPS}/plain`, {
      body: { metadata: { labels: { a: "b" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    const emptied = await server.call("PATCH", `${CONFIG_MAPS}/plain`, {
      body: [{ op: "remove", path: "/metadata/labels/a" }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(emptied.status, 200, emptied.text);
    assert.equal("labels" in (emptied.json["metadata"] as Json), false);
  });
});
