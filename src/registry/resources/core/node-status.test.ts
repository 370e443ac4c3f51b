import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const EMPTY_INFO = {
  machineID: "",
  systemUUID: "",
  bootID: "",
  kernelVersion: "",
  osImage: "",
  containerRuntimeVersion: "",
  kubeletVersion: "",
  kubeProxyVersion: "",
  operatingSystem: "",
  architecture: "",
};

describe("a Node's status always has kube's zero-valued daemonEndpoints and nodeInfo", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  const statusOf = (answer: { json: Json }) => answer.json["status"] as Json;

  it("on create without a status, and with a partial nodeInfo (kept fields stay)", async () => {
    const bare = await server.call("POST", "/api/v1/nodes", { body: { metadata: { name: "bare" } } });
    assert.equal(bare.status, 201, bare.text);
    assert.deepEqual(statusOf(bare)["daemonEndpoints"], { kubeletEndpoint: { Port: 0 } });
    assert.deepEqual(statusOf(bare)["nodeInfo"], EMPTY_INFO);
    const partial = await server.call("POST", "/api/v1/nodes", {
      body: { metadata: { name: "partial" }, status: { capacity: { cpu: "2" }, nodeInfo: { kubeletVersion: "v1.30.0" } } },
    });
    assert.equal(partial.status, 201, partial.text);
    assert.deepEqual(statusOf(partial)["nodeInfo"], { ...EMPTY_INFO, kubeletVersion: "v1.30.0" });
    assert.deepEqual(statusOf(partial)["capacity"], { cpu: "2" });
    const listed = await server.call("GET", "/api/v1/nodes");
    for (const node of listed.json["items"] as Json[]) assert.equal(typeof ((node["status"] as Json)["nodeInfo"] as Json)["architecture"], "string");
  });

  it("on a status write that replaces nodeInfo with part of it, and on an update of the node", async () => {
    const replaced = await server.call("PATCH", "/api/v1/nodes/partial/status", {
      body: [{ op: "replace", path: "/status/nodeInfo", value: { architecture: "amd64" } }],
      headers: { "content-type": "application/json-patch+json" },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(statusOf(replaced)["nodeInfo"], { ...EMPTY_INFO, architecture: "amd64" });
    const labelled = await server.call("PATCH", "/api/v1/nodes/bare", {
      body: { metadata: { labels: { a: "b" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(statusOf(labelled)["daemonEndpoints"], { kubeletEndpoint: { Port: 0 } });
  });
});
