import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiGroup, ORCH_PROFILE } from "../api/profile.js";
import { publicName } from "../api/schema/render.js";
import { inProcessServer } from "../testing/in-process.js";

type Json = Record<string, unknown>;

const SCALE_ENTRY = { singularName: "", namespaced: true, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] };
const SCALE_NAME = publicName(ORCH_PROFILE, "autoscaling.v1.Scale");
const GVK_KEY = `${ORCH_PROFILE.openApiExtensionPrefixes[0] ?? ""}group-version-kind`;

function resources(json: Json): Json[] {
  return json["resources"] as Json[];
}

describe("the scale sub-resource in discovery and OpenAPI", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("lists <kind>/scale as autoscaling/v1 Scale in legacy discovery, after the kind and before its status", async () => {
    const apps = resources((await server.call("GET", "/apis/apps/v1")).json);
    for (const plural of ["deployments", "replicasets", "statefulsets"]) {
      const names = apps.map((entry) => entry["name"]).filter((name) => String(name).startsWith(`${plural}`));
      assert.deepEqual(names, [plural, `${plural}/scale`, `${plural}/status`]);
      assert.deepEqual(
        apps.find((entry) => entry["name"] === `${plural}/scale`),
        { name: `${plural}/scale`, ...SCALE_ENTRY },
      );
    }
    assert.equal(
      apps.some((entry) => entry["name"] === "daemonsets/scale"),
      false,
    );
    const core = resources((await server.call("GET", "/api/v1")).json);
    assert.deepEqual(
      core.find((entry) => entry["name"] === "replicationcontrollers/scale"),
      { name: "replicationcontrollers/scale", ...SCALE_ENTRY },
    );
  });

  it("lists scale among a resource's sub-resources in aggregated discovery, answering autoscaling/v1 Scale", async () => {
    const accept = `application/json;g=${apiGroup(ORCH_PROFILE, "apidiscovery")};v=v2;as=APIGroupDiscoveryList`;
    const groups = (await server.call("GET", "/apis", { headers: { accept } })).json["items"] as Json[];
    const apps = groups.find((group) => (group["metadata"] as Json)["name"] === "apps") as Json;
    const v1 = (apps["versions"] as Json[]).find((version) => version["version"] === "v1") as Json;
    const deployments = (v1["resources"] as Json[]).find((resource) => resource["resource"] === "deployments") as Json;
    assert.deepEqual(deployments["subresources"], [
      { subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] },
      { subresource: "status", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
    ]);
  });

  it("documents the scale paths with the Scale schema in OpenAPI v3 and v2", async () => {
    const v3 = (await server.call("GET", "/openapi/v3/apis/apps/v1")).json;
    const path = (v3["paths"] as Json)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"] as Json;
    assert.deepEqual(Object.keys(path).sort(), ["get", "parameters", "patch", "put"]);
    const get = path["get"] as Json;
    assert.equal(get["operationId"], "readDeploymentScale");
    assert.deepEqual(get[GVK_KEY], { group: "autoscaling", version: "v1", kind: "Scale" });
    const ok = (get["responses"] as Json)["200"] as Json;
    assert.deepEqual(((ok["content"] as Json)["application/json"] as Json)["schema"], { $ref: `#/components/schemas/${SCALE_NAME}` });
    const schemas = (v3["components"] as Json)["schemas"] as Json;
    const scale = schemas[SCALE_NAME] as Json;
    assert.deepEqual(scale[GVK_KEY], [{ group: "autoscaling", kind: "Scale", version: "v1" }]);
    const spec = schemas[publicName(ORCH_PROFILE, "autoscaling.v1.ScaleSpec")] as Json;
    assert.deepEqual((spec["properties"] as Json)["replicas"], {
      type: "integer",
      format: "int32",
      minimum: 0,
      description: "The desired number of instances of the scaled object.",
    });
    const status = schemas[publicName(ORCH_PROFILE, "autoscaling.v1.ScaleStatus")] as Json;
    assert.deepEqual(status["required"], ["replicas"]);
    const v2 = (await server.call("GET", "/openapi/v2")).json;
    const core = (v2["paths"] as Json)["/api/v1/namespaces/{namespace}/replicationcontrollers/{name}/scale"] as Json;
    assert.equal((core["put"] as Json)["operationId"], "replaceReplicationControllerScale");
    assert.ok((v2["definitions"] as Json)[SCALE_NAME] !== undefined);
  });
});

describe("the scale sub-resource under --runtime-config", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ runtimeConfig: new Map([["apps/v1", false]]) });
  });
  after(async () => {
    await server.stop();
  });

  it("goes with its parent's group version", async () => {
    assert.equal((await server.call("GET", "/apis/apps/v1/namespaces/default/deployments/web/scale")).status, 404);
    const rc = {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "kept" },
      spec: { selector: { app: "x" }, template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } } },
    };
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/replicationcontrollers", { body: rc })).status, 201);
    const scale = await server.call("GET", "/api/v1/namespaces/default/replicationcontrollers/kept/scale");
    assert.equal(scale.status, 200);
    assert.deepEqual(scale.json["spec"], { replicas: 1 });
    const v3 = (await server.call("GET", "/openapi/v3")).json["paths"] as Json;
    assert.equal(v3["apis/apps/v1"], undefined);
  });
});
