import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer, type CallOptions, type TestResponse } from "../testing/in-process.js";
import { nameOf, WatchReader } from "../testing/watch-reader.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Json = Record<string, unknown>;

const CM = "/api/v1/namespaces/dry/configmaps";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/dry/deployments";
/** The rest of a valid Deployment spec, as apply YAML lines under `spec:`. */
const DEPLOYMENT_SPEC =
  "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers: [{name: c, image: busybox}]\n";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const MERGE = { "content-type": "application/merge-patch+json" };

/** The response without what a real write generates differently (uid, times, resourceVersion). */
function comparable(json: Json): Json {
  const metadata = { ...(json["metadata"] as Json) };
  delete metadata["uid"];
  delete metadata["creationTimestamp"];
  delete metadata["resourceVersion"];
  if (Array.isArray(metadata["managedFields"])) metadata["managedFields"] = (metadata["managedFields"] as Json[]).map(({ time: _time, ...entry }) => entry);
  return { ...json, metadata };
}

describe("dryRun on every modifying verb", () => {
  let server: Server;
  let watch: WatchReader;
  const stopWatch = new AbortController();

  before(async () => {
    server = await inProcessServer();
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "dry" } } })).status, 201);
    await server.call("POST", `${CM}?fieldManager=seed`, { body: { metadata: { name: "existing", finalizers: ["example.com/hold"] }, data: { a: "1" } } });
    await server.call("PATCH", `${DEPLOYMENTS}/web?fieldManager=deployer`, {
      body: `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n${DEPLOYMENT_SPEC}`,
      headers: APPLY,
    });
    const list = await server.call("GET", CM);
    const version = String((list.json["metadata"] as Json)["resourceVersion"]);
    watch = new WatchReader(await server.raw("GET", `/api/v1/configmaps?watch=1&resourceVersion=${version}`, { signal: stopWatch.signal }));
  });
  after(async () => {
    stopWatch.abort();
    await watch.close();
    await server.stop();
  });

  /** Runs a dry-run request and checks it consumed no revision. */
  async function dryRun(method: string, path: string, options: CallOptions = {}): Promise<TestResponse> {
    const before = server.storage.currentRevision();
    const response = await server.call(method, path, options);
    assert.equal(server.storage.currentRevision(), before, `${method} ${path} consumed a revision`);
    return response;
  }

  it("POST: answers 201 with the object a real create returns (managedFields included), stores nothing", async () => {
    const body = { metadata: { name: "fresh" }, data: { k: "v" } };
    const dry = await dryRun("POST", `${CM}?dryRun=All&fieldManager=creator`, { body });
    assert.equal(dry.status, 201, dry.text);
    assert.equal((dry.json["metadata"] as Json)["resourceVersion"], undefined);
    assert.equal((await server.call("GET", `${CM}/fresh`)).status, 404);
    const real = await server.call("POST", `${CM}?fieldManager=creator`, { body });
    assert.deepEqual(comparable(dry.json), comparable(real.json));
    await server.call("DELETE", `${CM}/fresh`);
  });

  it("accepts dryRun present with an empty value, and refuses other values with 400", async () => {
    const empty = await dryRun("POST", `${CM}?dryRun`, { body: { metadata: { name: "empty-value" } } });
    assert.equal(empty.status, 201);
    assert.equal((await server.call("GET", `${CM}/empty-value`)).status, 404);
    const other = await dryRun("POST", `${CM}?dryRun=Some`, { body: { metadata: { name: "other-value" } } });
    assert.equal(other.status, 422);
    assert.equal(other.json["message"], 'CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
  });

  it("runs validation and uniqueness checks like the real request", async () => {
    assert.equal((await dryRun("POST", `${CM}?dryRun=All`, { body: { metadata: { name: "existing" } } })).status, 409);
    assert.equal((await dryRun("POST", `${CM}?dryRun=All`, { body: { metadata: { name: "Not_Valid" } } })).status, 422);
  });

  it("PUT and PATCH: answer what the real write would, with the same managedFields, and change nothing", async () => {
    const current = await server.call("GET", `${CM}/existing`);
    const put = await dryRun("PUT", `${CM}/existing?dryRun=All&fieldManager=putter`, { body: { ...current.json, data: { a: "2" } } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json["data"] as Json, { a: "2" });
    const merge = await dryRun("PATCH", `${CM}/existing?dryRun=All&fieldManager=patcher`, { body: { data: { b: "3" } }, headers: MERGE });
    assert.deepEqual(merge.json["data"], { a: "1", b: "3" });
    const applied = await dryRun("PATCH", `${CM}/existing?dryRun=All&fieldManager=applier`, {
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: existing\ndata:\n  c: '4'\n",
      headers: APPLY,
    });
    assert.equal(applied.status, 200, applied.text);
    const after = await server.call("GET", `${CM}/existing`);
    assert.deepEqual(after.json, current.json);
    const real = await server.call("PATCH", `${CM}/existing?fieldManager=patcher`, { body: { data: { b: "3" } }, headers: MERGE });
    assert.deepEqual(comparable(merge.json), comparable(real.json));
    await server.call("PATCH", `${CM}/existing?fieldManager=patcher`, { body: { data: { b: null } }, headers: MERGE });
  });

  it("apply: creates nothing and reports conflicts exactly as the real apply", async () => {
    const created = await dryRun("PATCH", `${DEPLOYMENTS}/ghost?dryRun=All&fieldManager=deployer`, {
      body: `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ghost\nspec:\n  replicas: 2\n${DEPLOYMENT_SPEC}`,
      headers: APPLY,
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.call("GET", `${DEPLOYMENTS}/ghost`)).status, 404);
    const conflict = await dryRun("PATCH", `${DEPLOYMENTS}/web?dryRun=All&fieldManager=scaler`, {
      body: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 5\n",
      headers: APPLY,
    });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json["message"], 'Apply failed with 1 conflict: conflict with "deployer": .spec.replicas');
    const status = await dryRun("PUT", `${DEPLOYMENTS}/web/status?dryRun=All&fieldManager=controller`, {
      body: { metadata: { name: "web" }, status: { replicas: 1 } },
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual((await server.call("GET", `${DEPLOYMENTS}/web`)).json["status"], {}, "still the empty status it was created with");
  });

  it("DELETE and deletecollection: answer as the real delete and keep the objects", async () => {
    const marked = await dryRun("DELETE", `${CM}/existing?dryRun=All`);
    assert.equal(marked.status, 200);
    assert.match(String((marked.json["metadata"] as Json)["deletionTimestamp"]), /Z$/);
    assert.equal(((await server.call("GET", `${CM}/existing`)).json["metadata"] as Json)["deletionTimestamp"], undefined);
    await server.call("POST", `${CM}`, { body: { metadata: { name: "plain" } } });
    const deleted = await dryRun("DELETE", `${CM}/plain`, { body: { kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"] } });
    assert.equal(deleted.json["status"], "Success");
    assert.equal((await server.call("GET", `${CM}/plain`)).status, 200);
    const collection = await dryRun("DELETE", `${CM}?dryRun=All`);
    assert.equal(collection.status, 200);
    assert.equal(((await server.call("GET", CM)).json["items"] as Json[]).length, 2);
  });

  it("is authorized as the real request", async () => {
    const real = await server.call("POST", CM, { body: { metadata: { name: "x" } }, as: "alice" });
    const forbidden = await dryRun("POST", `${CM}?dryRun=All`, { body: { metadata: { name: "x" } }, as: "alice" });
    assert.equal(real.status, 403);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.json["message"], real.json["message"]);
  });

  it("emits no watch event: the first event after all the dry runs is the next real write", async () => {
    await server.call("POST", CM, { body: { metadata: { name: "marker" } } });
    // Exactly the real writes of the earlier tests, in order, then the marker: no dry run shows.
    const seen: string[] = [];
    while (!seen.includes("ADDED marker")) for (const event of await watch.next(1)) seen.push(`${event.type} ${nameOf(event)}`);
    assert.deepEqual(seen, ["ADDED fresh", "DELETED fresh", "MODIFIED existing", "MODIFIED existing", "ADDED plain", "ADDED marker"]);
  });
});
