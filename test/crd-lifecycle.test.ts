import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { eventually } from "./helpers/wait.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";

type Json = Record<string, unknown>;
type Server = Awaited<ReturnType<typeof inProcessServer>>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const GROUP = "life.example.com";
const NAME = `gizmos.${GROUP}`;
const GIZMOS = `/apis/${GROUP}/v1/namespaces/default/gizmos`;
const MERGE = { "content-type": "application/merge-patch+json" };

function definition(spec: Json): Json {
  return {
    apiVersion: `${APIEXTENSIONS}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", listKind: "GizmoList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } },
        },
      ],
    },
  };
}

function gizmo(name: string, extra: Json = {}): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Gizmo", metadata: { name, ...extra }, spec: { size: 1 } };
}

function conditionOf(crd: Json, type: string): Json | undefined {
  return (((crd["status"] as Json | undefined)?.["conditions"] as Json[] | undefined) ?? []).find((item) => item["type"] === type);
}

describe("custom resource lifecycle: defaults on read, deletion of a definition", () => {
  let server: Server;
  const storage = new MemoryStorage();
  before(async () => {
    server = await inProcessServer({ storage });
    const created = await server.call("POST", CRDS, { body: definition({ size: { type: "integer" } }) });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => ((await server.call("GET", GIZMOS)).status === 200 ? true : undefined));
  });
  after(async () => server.server.stop());

  it("applies a default added to the schema later to objects stored before it, on get, list and watch", async () => {
    assert.equal((await server.call("POST", GIZMOS, { body: gizmo("old") })).status, 201);
    const current = await server.call("GET", `${CRDS}/${NAME}`);
    const next = definition({ size: { type: "integer" }, color: { type: "string", default: "blue" } });
    const updated = await server.call("PUT", `${CRDS}/${NAME}`, { body: { ...next, metadata: current.json["metadata"] } });
    assert.equal(updated.status, 200, updated.text);
    const got = await eventually(async () => {
      const response = await server.call("GET", `${GIZMOS}/old`);
      return (response.json["spec"] as Json)["color"] === "blue" ? response.json : undefined;
    });
    assert.deepEqual(got["spec"], { size: 1, color: "blue" });
    // Stored as written: the default is applied on the way out.
    assert.deepEqual((JSON.parse((await storage.get(`/${GROUP}/gizmos/default/old`)).value) as Json)["spec"], { size: 1 });
    const listed = await server.call("GET", GIZMOS);
    const item = (listed.json["items"] as Json[]).find((candidate) => (candidate["metadata"] as Json)["name"] === "old");
    assert.deepEqual(item?.["spec"], { size: 1, color: "blue" });
    const watched = await server.call("GET", `${GIZMOS}?watch=1&timeoutSeconds=1`);
    const added = watched.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json)
      .find((event) => ((event["object"] as Json)["metadata"] as Json)["name"] === "old");
    assert.deepEqual((added?.["object"] as Json | undefined)?.["spec"], { size: 1, color: "blue" });
  });

  it("reads an object stored at an earlier storage version with the requested apiVersion (conversion None)", async () => {
    const current = await server.call("GET", `${CRDS}/${NAME}`);
    const spec = current.json["spec"] as Json;
    const [v1] = spec["versions"] as Json[];
    const versions = [
      { ...v1, storage: false },
      { ...v1, name: "v2", storage: true },
    ];
    const updated = await server.call("PUT", `${CRDS}/${NAME}`, { body: { ...current.json, spec: { ...spec, versions } } });
    assert.equal(updated.status, 200, updated.text);
    const V2 = `/apis/${GROUP}/v2/namespaces/default/gizmos`;
    const got = await eventually(async () => {
      const response = await server.call("GET", `${V2}/old`);
      return response.status === 200 ? response.json : undefined;
    });
    assert.equal(got["apiVersion"], `${GROUP}/v2`);
    const listed = await server.call("GET", V2);
    assert.ok((listed.json["items"] as Json[]).every((item) => item["apiVersion"] === `${GROUP}/v2`));
    assert.equal((await server.call("GET", `${GIZMOS}/old`)).json["apiVersion"], `${GROUP}/v1`);
    assert.equal((JSON.parse((await storage.get(`/${GROUP}/gizmos/default/old`)).value) as Json)["apiVersion"], `${GROUP}/v1`);
  });

  it("deleting the definition marks it Terminating (InstanceDeletionInProgress), refuses creates with 405, deletes objects, then goes", async () => {
    assert.equal((await server.call("POST", GIZMOS, { body: gizmo("held", { finalizers: ["example.com/hold"] }) })).status, 201);
    const deleted = await server.call("DELETE", `${CRDS}/${NAME}`);
    assert.equal(deleted.status, 200, deleted.text);
    const terminating = await eventually(async () => {
      const crd = await server.call("GET", `${CRDS}/${NAME}`);
      return conditionOf(crd.json, "Terminating")?.["status"] === "True" ? crd.json : undefined;
    });
    assert.equal(conditionOf(terminating, "Terminating")?.["reason"], "InstanceDeletionInProgress");
    assert.deepEqual((terminating["metadata"] as Json)["finalizers"], [`customresourcecleanup.${APIEXTENSIONS}`]);
    const refused = await eventually(async () => {
      const response = await server.call("POST", GIZMOS, { body: gizmo("late") });
      return response.status === 405 ? response.json : undefined;
    });
    assert.equal(refused["reason"], "MethodNotAllowed");
    assert.equal(refused["message"], "create not allowed while custom resource definition is terminating");
    // The held object is marked for deletion; the definition waits for it.
    const held = await eventually(async () => {
      const response = await server.call("GET", `${GIZMOS}/held`);
      return (response.json["metadata"] as Json | undefined)?.["deletionTimestamp"] !== undefined ? response.json : undefined;
    });
    assert.equal((await server.call("GET", `${GIZMOS}/old`)).status, 404);
    assert.equal((await server.call("GET", `${CRDS}/${NAME}`)).status, 200);
    const released = await server.call("PATCH", `${GIZMOS}/held`, { body: { metadata: { finalizers: null } }, headers: MERGE });
    assert.equal(released.status, 200, released.text);
    assert.ok(held["metadata"] !== undefined);
    await eventually(async () => ((await server.call("GET", `${CRDS}/${NAME}`)).status === 404 ? true : undefined));
    assert.equal((await server.call("GET", GIZMOS)).status, 404);
    assert.deepEqual((await storage.list(`/${GROUP}/gizmos/`, {})).items, []);
  });
});

describe("custom resource definition updates: kube's rules on scope, kind and stored versions", () => {
  let server: Server;
  const RULES_GROUP = "rules.example.com";
  const RULES_NAME = `widgets.${RULES_GROUP}`;
  const schema = { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" } } } };
  const body = (versions: Json[], extra: Json = {}): Json => ({
    apiVersion: `${APIEXTENSIONS}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: RULES_NAME },
    spec: { group: RULES_GROUP, scope: "Namespaced", names: { plural: "widgets", kind: "Widget" }, versions, ...extra },
  });
  const version = (name: string, storage: boolean): Json => ({ name, served: true, storage, schema });
  const current = async (): Promise<Json> => (await server.call("GET", `${CRDS}/${RULES_NAME}`)).json;
  const storedVersions = (crd: Json): unknown => (crd["status"] as Json | undefined)?.["storedVersions"];
  before(async () => {
    server = await inProcessServer({});
    const created = await server.call("POST", CRDS, { body: body([version("v1", true)]) });
    assert.equal(created.status, 201, created.text);
    await eventually(async () => (conditionOf(await current(), "Established")?.["status"] === "True" ? true : undefined));
  });
  after(async () => server.server.stop());

  it("refuses a change of scope or kind once Established (422, field is immutable)", async () => {
    const crd = await current();
    const spec = crd["spec"] as Json;
    const scope = await server.call("PUT", `${CRDS}/${RULES_NAME}`, { body: { ...crd, spec: { ...spec, scope: "Cluster" } } });
    assert.equal(scope.status, 422, scope.text);
    assert.match(String(scope.json["message"]), /spec\.scope: Invalid value: "Cluster": field is immutable/);
    const names = { ...(spec["names"] as Json), kind: "Gadget" };
    const kind = await server.call("PUT", `${CRDS}/${RULES_NAME}`, { body: { ...crd, spec: { ...spec, names } } });
    assert.equal(kind.status, 422, kind.text);
    assert.match(String(kind.json["message"]), /spec\.names\.kind: Invalid value: "Gadget": field is immutable/);
  });

  it("keeps stored versions declared, never empty, and holding the storage version; a migration may drop the old one", async () => {
    const crd = await current();
    const spec = crd["spec"] as Json;
    const moved = await server.call("PUT", `${CRDS}/${RULES_NAME}`, {
      body: { ...crd, spec: { ...spec, versions: [version("v1", false), version("v2", true)] } },
    });
    assert.equal(moved.status, 200, moved.text);
    await eventually(async () => (JSON.stringify(storedVersions(await current())) === '["v1","v2"]' ? true : undefined));
    const status = `${CRDS}/${RULES_NAME}/status`;
    const empty = await server.call("PATCH", status, { headers: MERGE, body: { status: { storedVersions: [] } } });
    assert.equal(empty.status, 422, empty.text);
    assert.match(String(empty.json["message"]), /status\.storedVersions: Invalid value: .*must have at least one stored version/);
    const withoutStorage = await server.call("PATCH", status, { headers: MERGE, body: { status: { storedVersions: ["v1"] } } });
    assert.equal(withoutStorage.status, 422, withoutStorage.text);
    assert.match(String(withoutStorage.json["message"]), /must have the storage version v2/);
    const dropped = await server.call("PUT", `${CRDS}/${RULES_NAME}`, { body: { ...(await current()), spec: { ...spec, versions: [version("v2", true)] } } });
    assert.equal(dropped.status, 422, dropped.text);
    assert.match(String(dropped.json["message"]), /status\.storedVersions\[0\]: Invalid value: "v1": must appear in spec\.versions/);
    const migrated = await server.call("PATCH", status, { headers: MERGE, body: { status: { storedVersions: ["v2"] } } });
    assert.equal(migrated.status, 200, migrated.text);
    assert.deepEqual(storedVersions(migrated.json), ["v2"]);
    const removed = await server.call("PUT", `${CRDS}/${RULES_NAME}`, { body: { ...(await current()), spec: { ...spec, versions: [version("v2", true)] } } });
    assert.equal(removed.status, 200, removed.text);
  });
});
