import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inProcessServer } from "../testing/in-process.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

function assertStatus(json: Record<string, unknown>, code: number, reason: string): void {
  assert.equal(json["kind"], "Status");
  assert.equal(json["apiVersion"], "v1");
  assert.equal(json["status"], "Failure");
  assert.equal(json["code"], code);
  assert.equal(json["reason"], reason);
  assert.equal(typeof json["message"], "string");
}

describe("the request pipeline", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("answers /readyz, /livez and /healthz with ok to anyone", async () => {
    for (const path of ["/readyz", "/livez", "/healthz"]) {
      const response = await server.call("GET", path, { as: "anonymous" });
      assert.equal(response.status, 200, path);
      assert.equal(response.text, "ok");
    }
  });

  it("lists named checks with ?verbose and honours ?exclude", async () => {
    const response = await server.call("GET", "/readyz?verbose&exclude=storage", { as: "anonymous" });
    assert.match(response.text, /\[\+\]ping ok/);
    assert.match(response.text, /\[\+\]storage excluded: ok/);
    assert.match(response.text, /readyz check passed/);
  });

  it("fails /readyz once shutdown begins", async () => {
    const other = await inProcessServer();
    other.server.beginShutdown();
    const response = await other.call("GET", "/readyz", { as: "anonymous" });
    assert.equal(response.status, 500);
    await other.stop();
  });

  it("rejects an unknown bearer token with 401 Unauthorized", async () => {
    const response = await server.call("GET", "/api/v1/namespaces", { headers: { authorization: "Bearer nope" }, as: "anonymous" });
    assert.equal(response.status, 401);
    assertStatus(response.json, 401, "Unauthorized");
  });

  it("forbids users outside system:masters with kube's message", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default/configmaps", { as: "alice" });
    assert.equal(response.status, 403);
    assertStatus(response.json, 403, "Forbidden");
    assert.equal(
      response.json["message"],
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it("forbids anonymous resource access", async () => {
    const response = await server.call("GET", "/api/v1/pods", { as: "anonymous" });
    assert.equal(response.status, 403);
  });

  it("serves discovery to authenticated users", async () => {
    const alice = await server.call("GET", "/api", { as: "alice" });
    assert.equal(alice.status, 200);
    assert.deepEqual(alice.json["versions"], ["v1"]);
    const resources = await server.call("GET", "/api/v1");
    assert.equal(resources.json["kind"], "APIResourceList");
    const list = resources.json["resources"] as Record<string, unknown>[];
    const configmaps = list.find((entry) => entry["name"] === "configmaps");
    assert.deepEqual(configmaps?.["shortNames"], ["cm"]);
    assert.equal(configmaps?.["namespaced"], true);
    assert.deepEqual(configmaps?.["verbs"], ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
    assert.ok(list.some((entry) => entry["name"] === "pods/status"));
    const namespaces = list.find((entry) => entry["name"] === "namespaces");
    assert.equal(namespaces?.["namespaced"], false);
  });

  it("serves aggregated discovery with an ETag and answers 304 to If-None-Match", async () => {
    const accept = "application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList,application/json";
    const core = await server.call("GET", "/api", { headers: { accept } });
    assert.equal(core.status, 200);
    assert.equal(core.headers["content-type"], "application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList");
    assert.equal(core.json["kind"], "APIGroupDiscoveryList");
    const items = core.json["items"] as { versions: { version: string; resources: Record<string, unknown>[] }[] }[];
    const configmaps = items[0]?.versions[0]?.resources.find((resource) => resource["resource"] === "configmaps");
    assert.deepEqual(configmaps?.["responseKind"], { group: "", version: "v1", kind: "ConfigMap" });
    assert.equal(configmaps?.["scope"], "Namespaced");
    const etag = core.headers["etag"];
    assert.equal(typeof etag, "string");
    const again = await server.call("GET", "/api", { headers: { accept, "if-none-match": String(etag) } });
    assert.equal(again.status, 304);
    // kubectl and client-go ask in kube's spelling; they are answered in it, with the same resources.
    const kube = await server.call("GET", "/api", {
      headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" },
    });
    assert.equal(kube.headers["content-type"], "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    assert.equal(kube.json["apiVersion"], "apidiscovery.k8s.io/v2");
    assert.deepEqual(kube.json["items"], core.json["items"]);
    assert.notEqual(kube.headers["etag"], etag);
    const legacy = await server.call("GET", "/api", {
      headers: { accept: "application/json;g=apidiscovery.example.com;v=v2;as=APIGroupDiscoveryList,application/json" },
    });
    assert.equal(legacy.json["kind"], "APIVersions", "an unknown discovery group falls back to legacy discovery");
    const v2beta1 = await server.call("GET", "/apis", { headers: { accept: "application/json;g=apidiscovery.orch.io;v=v2beta1;as=APIGroupDiscoveryList" } });
    assert.equal(v2beta1.json["apiVersion"], "apidiscovery.orch.io/v2beta1");
  });

  it("answers /apis with an APIGroupList and /version with version info", async () => {
    const groups = await server.call("GET", "/apis");
    assert.equal(groups.json["kind"], "APIGroupList");
    const version = await server.call("GET", "/version", { as: "anonymous" });
    assert.equal(version.json["major"], "1");
    assert.match(String(version.json["gitVersion"]), /^v1\.\d+\.\d+/);
  });

  it("answers unknown paths and resources with 404 NotFound", async () => {
    for (const path of ["/apis/nope.example.com/v1", "/api/v1/widgets", "/api/v2/pods", "/nothing"]) {
      const response = await server.call("GET", path);
      assert.equal(response.status, 404, path);
      assertStatus(response.json, 404, "NotFound");
    }
  });

  it("refuses malformed JSON with 400 and stores nothing", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":{"name":"x"' });
    assert.equal(response.status, 400);
    assertStatus(response.json, 400, "BadRequest");
    assert.equal((await server.call("GET", "/api/v1/namespaces/default/configmaps/x")).status, 404);
  });

  it("refuses an unknown content type with 415", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: "x", headers: { "content-type": "text/plain" } });
    assert.equal(response.status, 415);
    assertStatus(response.json, 415, "UnsupportedMediaType");
  });

  it("refuses bodies over 3 MiB with 413", async () => {
    const big = { metadata: { name: "big" }, data: { a: "x".repeat(3 * 1024 * 1024) } };
    const response = await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: big });
    assert.equal(response.status, 413);
    assertStatus(response.json, 413, "RequestEntityTooLarge");
  });

  it("answers 406 when no acceptable media type is offered", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default", { headers: { accept: "application/vnd.unknown" } });
    assert.equal(response.status, 406);
    assertStatus(response.json, 406, "NotAcceptable");
  });

  it("falls back along the Accept list and serves YAML on request", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default", { headers: { accept: "application/vnd.unknown, application/yaml" } });
    assert.equal(response.status, 200);
    assert.match(response.text, /^apiVersion: v1\nkind: Namespace\n/);
  });

  it("renders a Table with the kind's columns, or Name and Created At for kinds without a table", async () => {
    const accept = "application/json;as=Table;g=meta.orch.io;v=v1, application/json";
    const response = await server.call("GET", "/api/v1/namespaces", { headers: { accept } });
    assert.equal(response.json["kind"], "Table");
    assert.equal(response.json["apiVersion"], "meta.orch.io/v1");
    const columns = response.json["columnDefinitions"] as Record<string, unknown>[];
    assert.deepEqual(
      columns.map((column) => column["name"]),
      ["Name", "Status", "Age"],
    );
    const rows = response.json["rows"] as { cells: unknown[]; object: Record<string, unknown> }[];
    const defaultRow = rows.find((row) => row.cells[0] === "default");
    assert.equal(defaultRow?.cells[1], "Active");
    assert.match(String(defaultRow?.cells[2]), /^\d+s$/);
    assert.equal(defaultRow?.object["kind"], "PartialObjectMetadata");
    const plain = await server.call("GET", "/api/v1/limitranges", { headers: { accept } });
    assert.deepEqual(
      (plain.json["columnDefinitions"] as Record<string, unknown>[]).map((column) => column["name"]),
      ["Name", "Created At"],
    );
    const none = await server.call("GET", "/api/v1/namespaces?includeObject=None", { headers: { accept } });
    assert.equal((none.json["rows"] as Record<string, unknown>[])[0]?.["object"], undefined);
    // kubectl asks in kube's meta group: the same Table, in that spelling; an unknown group is 406.
    const kube = await server.call("GET", "/api/v1/namespaces", { headers: { accept: "application/json;as=Table;g=meta.k8s.io;v=v1" } });
    assert.equal(kube.json["apiVersion"], "meta.k8s.io/v1");
    assert.deepEqual(
      (kube.json["columnDefinitions"] as Record<string, unknown>[]).map((column) => column["name"]),
      ["Name", "Status", "Age"],
    );
    assert.equal((kube.json["rows"] as { object: Record<string, unknown> }[])[0]?.object?.["apiVersion"], "meta.k8s.io/v1");
    assert.equal((await server.call("GET", "/api/v1/namespaces", { headers: { accept: "application/json;as=Table;g=meta.example.com;v=v1" } })).status, 406);
  });

  it("serves PartialObjectMetadata for objects and PartialObjectMetadataList for lists", async () => {
    const one = await server.call("GET", "/api/v1/namespaces/default", {
      headers: { accept: "application/json;as=PartialObjectMetadata;g=meta.orch.io;v=v1" },
    });
    assert.equal(one.json["kind"], "PartialObjectMetadata");
    assert.equal(one.json["apiVersion"], "meta.orch.io/v1");
    assert.equal((one.json["metadata"] as Record<string, unknown>)["name"], "default");
    assert.equal(one.json["spec"], undefined);
    const list = await server.call("GET", "/api/v1/namespaces", { headers: { accept: "application/json;as=PartialObjectMetadataList;g=meta.orch.io;v=v1" } });
    assert.equal(list.json["kind"], "PartialObjectMetadataList");
    assert.ok((list.json["items"] as Record<string, unknown>[]).every((item) => item["kind"] === "PartialObjectMetadata" && item["status"] === undefined));
    const wrong = await server.call("GET", "/api/v1/namespaces", { headers: { accept: "application/json;as=PartialObjectMetadata;g=meta.orch.io;v=v1" } });
    assert.equal(wrong.status, 406);
  });

  it("answers 405 for a verb the path does not take", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/default/configmaps/x", { body: { metadata: { name: "x" } } });
    assert.equal(response.status, 405);
    assertStatus(response.json, 405, "MethodNotAllowed");
  });

  it("serves the OpenAPI v3 index with patch operations that declare fieldValidation", async () => {
    const root = await server.call("GET", "/openapi/v3");
    const paths = root.json["paths"] as Record<string, { serverRelativeURL: string }>;
    const core = paths["api/v1"];
    assert.ok(core !== undefined);
    const document = await server.call("GET", core.serverRelativeURL);
    const item = (document.json["paths"] as Record<string, Record<string, Record<string, unknown>>>)["/api/v1/namespaces/{namespace}/configmaps/{name}"];
    const patch = item?.["patch"];
    assert.deepEqual(patch?.["x-kubernetes-group-version-kind"], { group: "", version: "v1", kind: "ConfigMap" });
    assert.ok((patch?.["parameters"] as { name: string }[]).some((parameter) => parameter.name === "fieldValidation"));
  });
});
