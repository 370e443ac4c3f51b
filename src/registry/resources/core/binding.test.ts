import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const PODS = "/api/v1/namespaces/default/pods";

describe("pod bindings (POST bindings, POST pods/{name}/binding)", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  async function pod(name: string): Promise<Json> {
    const created = await server.call("POST", PODS, {
      body: { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    assert.equal(created.status, 201, created.text);
    return created.json;
  }
  const binding = (name: string, node: string, extra: Json = {}): Json => ({
    apiVersion: "v1",
    kind: "Binding",
    metadata: { name, ...extra },
    target: { kind: "Node", name: node },
  });
  const spec = async (name: string): Promise<Json> => (await server.call("GET", `${PODS}/${name}`)).json;

  it("pods/{name}/binding sets the node, copies annotations, marks the pod scheduled and answers a Success Status", async () => {
    await pod("p1");
    const bound = await server.call("POST", `${PODS}/p1/binding`, { body: binding("p1", "node-a", { annotations: { "example.com/why": "fits" } }) });
    assert.equal(bound.status, 201, bound.text);
    assert.deepEqual({ kind: bound.json["kind"], status: bound.json["status"], code: bound.json["code"] }, { kind: "Status", status: "Success", code: 201 });
    const stored = await spec("p1");
    assert.equal((stored["spec"] as Json)["nodeName"], "node-a");
    assert.equal(((stored["metadata"] as Json)["annotations"] as Json)["example.com/why"], "fits");
    const conditions = (stored["status"] as { conditions: Json[] }).conditions;
    assert.deepEqual(
      conditions.map((condition) => [condition["type"], condition["status"]]),
      [["PodScheduled", "True"]],
    );
  });

  it("the bindings collection binds the pod named in the body", async () => {
    await pod("p2");
    const bound = await server.call("POST", "/api/v1/namespaces/default/bindings", { body: binding("p2", "node-b") });
    assert.equal(bound.status, 201, bound.text);
    assert.equal(((await spec("p2"))["spec"] as Json)["nodeName"], "node-b");
  });

  it("a pod already on a node is not bound again (409), and the first node stays", async () => {
    const again = await server.call("POST", `${PODS}/p1/binding`, { body: binding("p1", "node-z") });
    assert.equal(again.status, 409);
    assert.equal(again.json["reason"], "Conflict");
    assert.match(String(again.json["message"]), /pod p1 is already assigned to node "node-a"/);
    assert.equal(((await spec("p1"))["spec"] as Json)["nodeName"], "node-a");
  });

  it("refuses a name that differs from the URL (400), a target that is not a node (422), a missing pod (404), stale preconditions (409)", async () => {
    await pod("p3");
    assert.equal((await server.call("POST", `${PODS}/p3/binding`, { body: binding("other", "n") })).status, 400);
    const notNode = await server.call("POST", `${PODS}/p3/binding`, { body: { ...binding("p3", "n"), target: { kind: "Pod", name: "n" } } });
    assert.equal(notNode.status, 422);
    assert.match(String(notNode.json["message"]), /target\.kind: Unsupported value: "Pod"/);
    const noName = await server.call("POST", `${PODS}/p3/binding`, { body: { ...binding("p3", "n"), target: { kind: "Node" } } });
    assert.equal(noName.status, 422);
    assert.match(String(noName.json["message"]), /target\.name: Required value/);
    assert.equal((await server.call("POST", `${PODS}/missing/binding`, { body: binding("missing", "n") })).status, 404);
    const staleUid = await server.call("POST", `${PODS}/p3/binding`, { body: binding("p3", "n", { uid: "not-the-uid" }) });
    assert.equal(staleUid.status, 409);
    assert.match(String(staleUid.json["message"]), /Precondition failed: UID in precondition: not-the-uid/);
    assert.equal(((await spec("p3"))["spec"] as Json)["nodeName"], undefined);
  });

  it("dry-run binds nothing; other verbs are not allowed", async () => {
    await pod("p4");
    const dry = await server.call("POST", `${PODS}/p4/binding?dryRun=All`, { body: binding("p4", "n") });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(((await spec("p4"))["spec"] as Json)["nodeName"], undefined);
    assert.equal((await server.call("GET", "/api/v1/namespaces/default/bindings")).status, 405);
    assert.equal((await server.call("PUT", `${PODS}/p4/binding`, { body: binding("p4", "n") })).status, 405);
  });

  it("discovery lists bindings and pods/binding as create-only Binding resources", async () => {
    const resources = (await server.call("GET", "/api/v1")).json["resources"] as Json[];
    const find = (name: string): Json | undefined => resources.find((resource) => resource["name"] === name);
    assert.deepEqual(find("bindings")?.["verbs"], ["create"]);
    assert.equal(find("bindings")?.["kind"], "Binding");
    assert.equal(find("bindings")?.["namespaced"], true);
    assert.deepEqual(find("pods/binding")?.["verbs"], ["create"]);
    assert.equal(find("pods/binding")?.["kind"], "Binding");
  });
});
