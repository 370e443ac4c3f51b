import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../api/profile.js";
import { inProcessServer } from "../testing/in-process.js";

type Json = Record<string, unknown>;

/** Every `$ref` in a document, as the name after the prefix. */
function references(value: unknown, prefix: string, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) references(item, prefix, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") out.push(item.startsWith(prefix) ? item.slice(prefix.length) : `(outside) ${item}`);
      else references(item, prefix, out);
    }
  }
  return out;
}

function gvkOf(schema: Json, profile: Profile): unknown {
  return schema[`${profile.openApiExtensionPrefixes[0] ?? ""}group-version-kind`];
}

for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
  describe(`OpenAPI documents (${profile.name} profile)`, () => {
    let server: Awaited<ReturnType<typeof inProcessServer>>;
    before(async () => {
      server = await inProcessServer({ profile });
    });
    after(async () => {
      await server.stop();
    });

    it("serves a v3 document per group version whose references all resolve inside it", async () => {
      const root = await server.call("GET", "/openapi/v3");
      const paths = root.json["paths"] as Record<string, { serverRelativeURL: string }>;
      assert.ok(Object.keys(paths).length > 20);
      for (const [path, { serverRelativeURL }] of Object.entries(paths)) {
        const document = await server.call("GET", serverRelativeURL);
        assert.equal(document.status, 200, path);
        const schemas = (document.json["components"] as { schemas: Json }).schemas;
        const missing = references(document.json, "#/components/schemas/").filter((name) => schemas[name] === undefined);
        assert.deepEqual(missing, [], path);
      }
    });

    it("describes each kind with its group-version-kind, and points operations at it", async () => {
      const domain = profile.apiDomain.split(".").reverse().join(".");
      const document = (await server.call("GET", "/openapi/v3/apis/apps/v1")).json;
      const schemas = (document["components"] as { schemas: Record<string, Json> }).schemas;
      const deployment = schemas[`${domain}.api.apps.v1.Deployment`];
      assert.ok(deployment !== undefined);
      assert.deepEqual(gvkOf(deployment, profile), [{ group: "apps", kind: "Deployment", version: "v1" }]);
      assert.deepEqual(gvkOf(schemas[`${domain}.api.apps.v1.DeploymentList`] ?? {}, profile), [{ group: "apps", kind: "DeploymentList", version: "v1" }]);
      const item = (document["paths"] as Record<string, Record<string, Json>>)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
      const put = item?.["put"] as { requestBody: { content: Record<string, { schema: Json }> }; responses: Record<string, { content: Record<string, { schema: Json }> }> };
      assert.equal(put.requestBody.content["*/*"]?.schema["$ref"], `#/components/schemas/${domain}.api.apps.v1.Deployment`);
      assert.equal(put.responses["200"]?.content["application/json"]?.schema["$ref"], `#/components/schemas/${domain}.api.apps.v1.Deployment`);
      const containers = ((schemas[`${domain}.api.core.v1.PodSpec`]?.["properties"] as Record<string, Json>)["containers"]) ?? {};
      assert.equal(containers[`${profile.openApiExtensionPrefixes[0] ?? ""}patch-merge-key`], "name");
    });

    it("serves each document with an ETag and 304 for If-None-Match, built once", async () => {
      const first = await server.call("GET", "/openapi/v3/api/v1");
      const etag = String(first.headers["etag"]);
      const again = await server.call("GET", "/openapi/v3/api/v1");
      assert.equal(again.text, first.text);
      assert.equal((await server.call("GET", "/openapi/v3/api/v1", { headers: { "if-none-match": etag } })).status, 304);
      const root = await server.call("GET", "/openapi/v3");
      const url = (root.json["paths"] as Record<string, { serverRelativeURL: string }>)["api/v1"]?.serverRelativeURL ?? "";
      assert.ok(url.endsWith(`hash=${etag.replaceAll('"', "")}`), url);
      assert.equal((await server.call("GET", url)).headers["cache-control"], "public, immutable");
    });

    it("serves Swagger 2.0 at /openapi/v2 with definitions its references resolve to", async () => {
      const document = await server.call("GET", "/openapi/v2", { headers: { accept: "application/json" } });
      assert.equal(document.status, 200);
      assert.equal(document.json["swagger"], "2.0");
      const definitions = document.json["definitions"] as Record<string, Json>;
      assert.deepEqual(references(document.json, "#/definitions/").filter((name) => definitions[name] === undefined), []);
      const domain = profile.apiDomain.split(".").reverse().join(".");
      assert.deepEqual(gvkOf(definitions[`${domain}.api.core.v1.Pod`] ?? {}, profile), [{ group: "", kind: "Pod", version: "v1" }]);
      const post = (document.json["paths"] as Record<string, Record<string, { parameters: Json[] }>>)["/api/v1/namespaces/{namespace}/pods"]?.["post"];
      assert.deepEqual(post?.parameters.find((parameter) => parameter["in"] === "body")?.["schema"], { $ref: `#/definitions/${domain}.api.core.v1.Pod` });
    });

    it("answers 406 to a client that accepts only the protobuf form of /openapi/v2", async () => {
      const response = await server.call("GET", "/openapi/v2", { headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
      assert.equal(response.status, 406);
    });
  });
}
