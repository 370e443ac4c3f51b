import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { KUBERNETES_PROFILE, ORCH_PROFILE, type Profile } from "../api/profile.js";
import { OPENAPI_V2_PROTOBUF } from "../codec/openapi-v2-protobuf.js";
import { inProcessServer } from "../testing/in-process.js";

type Json = Record<string, unknown>;

/** The length-delimited fields of a protobuf message by number (other wire types skipped). */
function fieldsOf(bytes: Buffer): Map<number, Buffer[]> {
  const fields = new Map<number, Buffer[]>();
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[offset++] ?? 0;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
      if (byte < 0x80) return value;
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    const wireType = key % 8;
    const field = Math.floor(key / 8);
    if (wireType === 0) varint();
    else if (wireType === 1) offset += 8;
    else if (wireType === 2) {
      const length = varint();
      fields.set(field, [...(fields.get(field) ?? []), bytes.subarray(offset, offset + length)]);
      offset += length;
    } else throw new Error(`unexpected wire type ${wireType}`);
  }
  return fields;
}

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
      const put = item?.["put"] as {
        requestBody: { content: Record<string, { schema: Json }> };
        responses: Record<string, { content: Record<string, { schema: Json }> }>;
      };
      assert.equal(put.requestBody.content["*/*"]?.schema["$ref"], `#/components/schemas/${domain}.api.apps.v1.Deployment`);
      assert.equal(put.responses["200"]?.content["application/json"]?.schema["$ref"], `#/components/schemas/${domain}.api.apps.v1.Deployment`);
      const containers = (schemas[`${domain}.api.core.v1.PodSpec`]?.["properties"] as Record<string, Json>)["containers"] ?? {};
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

    it("answers the v3 index with an ETag (304 for If-None-Match), a stale hash with 301 to the current one, the current hash with a year's Expires", async () => {
      const root = await server.call("GET", "/openapi/v3");
      const etag = String(root.headers["etag"]);
      assert.match(etag, /^"[0-9A-F]{128}"$/);
      assert.equal((await server.call("GET", "/openapi/v3", { headers: { "if-none-match": etag } })).status, 304);
      const url = (root.json["paths"] as Record<string, { serverRelativeURL: string }>)["apis/apps/v1"]?.serverRelativeURL ?? "";
      const stale = await server.call("GET", "/openapi/v3/apis/apps/v1?hash=0123ABCD");
      assert.equal(stale.status, 301);
      assert.equal(stale.headers["location"], url);
      assert.equal(stale.headers["cache-control"], undefined, "a redirect is not cached forever");
      const current = await server.call("GET", url);
      assert.equal(current.status, 200);
      const expires = Date.parse(String(current.headers["expires"]));
      assert.ok(expires - Date.now() > 364 * 24 * 3600_000, String(current.headers["expires"]));
      const unhashed = await server.call("GET", "/openapi/v3/apis/apps/v1");
      assert.equal(unhashed.headers["expires"], undefined);
      assert.equal(unhashed.headers["cache-control"], undefined, "the listener adds kube's no-cache, private");
    });

    it("serves Swagger 2.0 at /openapi/v2 with definitions its references resolve to", async () => {
      const document = await server.call("GET", "/openapi/v2", { headers: { accept: "application/json" } });
      assert.equal(document.status, 200);
      assert.equal(document.json["swagger"], "2.0");
      const definitions = document.json["definitions"] as Record<string, Json>;
      assert.deepEqual(
        references(document.json, "#/definitions/").filter((name) => definitions[name] === undefined),
        [],
      );
      const domain = profile.apiDomain.split(".").reverse().join(".");
      assert.deepEqual(gvkOf(definitions[`${domain}.api.core.v1.Pod`] ?? {}, profile), [{ group: "", kind: "Pod", version: "v1" }]);
      const post = (document.json["paths"] as Record<string, Record<string, { parameters: Json[] }>>)["/api/v1/namespaces/{namespace}/pods"]?.["post"];
      assert.deepEqual(post?.parameters.find((parameter) => parameter["in"] === "body")?.["schema"], { $ref: `#/definitions/${domain}.api.core.v1.Pod` });
    });

    it("serves /openapi/v2 in gnostic's protobuf form to clients that ask for it (kubectl), and 406 for other types", async () => {
      const response = await server.raw("GET", "/openapi/v2", { headers: { accept: OPENAPI_V2_PROTOBUF } });
      assert.equal(response.status, 200);
      // kube labels the answer with the form's valid (dotted) media type.
      assert.equal(response.headers["content-type"], "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
      const bytes = Buffer.from(response.body as Uint8Array);
      const document = fieldsOf(bytes);
      assert.equal(document.get(1)?.[0]?.toString("utf8"), "2.0");
      const definitions = fieldsOf(document.get(9)?.[0] ?? Buffer.alloc(0)).get(1) ?? [];
      const names = definitions.map((entry) => fieldsOf(entry).get(1)?.[0]?.toString("utf8"));
      const json = (await server.call("GET", "/openapi/v2")).json["definitions"] as Json;
      assert.deepEqual(names, Object.keys(json));
      // kube-openapi's 406 carries no body.
      const refused = await server.raw("GET", "/openapi/v2", { headers: { accept: "application/xml" } });
      assert.equal(refused.status, 406);
      assert.equal(Buffer.from(refused.body as Uint8Array).length, 0);
    });

    it("negotiates /openapi/v2 as kube-openapi does: by quality, the more specific clause first, either protobuf spelling", async () => {
      const dotted = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
      const cases: [string, string | number][] = [
        ["application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/json"],
        [`${OPENAPI_V2_PROTOBUF}, application/json`, dotted],
        [`${OPENAPI_V2_PROTOBUF};q=0.5, application/json`, "application/json"],
        [dotted, dotted],
        ["*/*", "application/json"],
        [`*/*, ${dotted}`, dotted],
        ["application/*", "application/json"],
        ["application/test, application/json", "application/json"],
        ["application/test", 406],
        ["text/html", 406],
      ];
      for (const [accept, expected] of cases) {
        const response = await server.raw("GET", "/openapi/v2", { headers: { accept } });
        if (typeof expected === "number") assert.equal(response.status, expected, accept);
        else assert.equal(response.headers["content-type"], expected, accept);
      }
    });

    it("answers a v3 document's Accept it serves nothing for 406 without a body", async () => {
      const index = (await server.call("GET", "/openapi/v3")).json["paths"] as Record<string, Json>;
      const path = String(index["api/v1"]?.["serverRelativeURL"]).split("?")[0] ?? "";
      const refused = await server.raw("GET", path, { headers: { accept: "application/xml" } });
      assert.equal(refused.status, 406);
      assert.equal(Buffer.from(refused.body as Uint8Array).length, 0);
      assert.equal((await server.raw("GET", path, { headers: { accept: "application/json;q=0.9, text/html" } })).status, 200);
    });
  });
}
