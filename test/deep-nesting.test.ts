// Deep nesting (issue #20): kube's decoders accept request bodies nested up to 10,000 levels and
// refuse deeper ones with a 400. A custom resource whose spec preserves unknown fields holds such a
// body; every verb and content type must carry it through (create, read, list, watch, update,
// every patch type, server-side apply) over HTTP/1.1 and HTTP/2 without a 5xx or a crash, with
// Node's default stack; one level more is a 400 Status, as kube answers.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { MAX_BODY_DEPTH, nestingDepth } from "../src/codec/decode.js";
import { connectHttp2, json, request, type Http2Client, type HttpResult, type RequestOptions } from "./helpers/http.js";
import { startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;

const APIEXTENSIONS = apiGroup(ORCH_PROFILE, "apiextensions");
const CRDS = `/apis/${APIEXTENSIONS}/v1/customresourcedefinitions`;
const GROUP = "deep.example.com";
const TREES = `/apis/${GROUP}/v1/namespaces/default/trees`;
const PRESERVE = `${ORCH_PROFILE.openApiExtensionPrefixes[0] ?? ""}preserve-unknown-fields`;

const CRD = {
  apiVersion: `${APIEXTENSIONS}/v1`,
  kind: "CustomResourceDefinition",
  metadata: { name: `trees.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "trees", singular: "tree", kind: "Tree", listKind: "TreeList" },
    versions: [
      { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", [PRESERVE]: true } } } } },
    ],
  },
};

/** `levels` nested single-key objects around a leaf: `{"a":{"a":…1…}}`, `levels` deep. */
function chain(levels: number, key = "a"): string {
  return `${`{"${key}":`.repeat(levels)}1${"}".repeat(levels)}`;
}

/**
 * A Tree whose whole body nests exactly `depth` levels: the object (1), spec (2), then a chain of
 * objects; `arrays` of the innermost levels are arrays instead.
 */
function treeJson(name: string, depth: number, key = "a"): string {
  return `{"apiVersion":"${GROUP}/v1","kind":"Tree","metadata":{"name":"${name}"},"spec":{"deep":${chain(depth - 2, key)}}}`;
}

/**
 * The same Tree in YAML, `depth` levels deep: block mappings down to spec, then flow mappings
 * (`{a: {a: …}}`) or compact block sequences (`- - - 1`): block mappings indented once per level
 * would pass the body size limit long before 10,000 levels.
 */
function treeYaml(name: string, depth: number, style: "flow" | "sequence" = "flow"): string {
  const levels = depth - 2;
  const deep = style === "flow" ? `${"{a: ".repeat(levels)}1${"}".repeat(levels)}` : `\n   ${"- ".repeat(levels)}1`;
  return `apiVersion: ${GROUP}/v1\nkind: Tree\nmetadata:\n  name: ${name}\nspec:\n  deep: ${deep}\n`;
}

/** How deep a JSON text nests (brackets outside strings). */
function textDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") deepest = Math.max(deepest, ++depth);
    else if (char === "}" || char === "]") depth--;
  }
  return deepest;
}

type Send = (method: string, path: string, options?: RequestOptions) => Promise<HttpResult>;

function assertOk(result: HttpResult, status: number, what: string): void {
  assert.equal(result.status, status, `${what}: ${result.body.slice(0, 300)}`);
}

function assertRefused(result: HttpResult, what: string): Json {
  assert.equal(result.status, 400, `${what}: ${result.body.slice(0, 300)}`);
  const status = json(result);
  assert.equal(status["kind"], "Status");
  assert.equal(status["reason"], "BadRequest");
  assert.match(String(status["message"]), /exceeded max depth/, what);
  return status;
}

describe("bodies nested to kube's limit of 10,000 levels", () => {
  let server: TestServer;
  let http2: Http2Client;
  before(async () => {
    server = await startTestServer({ storageBackend: "sqlite" });
    http2 = await connectHttp2(server.admin);
    assertOk(await request(server.admin, "POST", CRDS, { body: CRD }), 201, "CRD");
    await waitFor(async () => (await request(server.admin, "GET", TREES)).status === 200, { timeoutMs: 20_000, what: "the Tree resource to be served" });
  });
  after(async () => {
    await http2?.close();
    await server?.close();
  });

  const transports: [string, () => Send][] = [
    ["HTTP/1.1", () => (method, path, options) => request(server.admin, method, path, { timeoutMs: 30_000, ...options })],
    ["HTTP/2", () => (method, path, options) => http2.request(method, path, options)],
  ];

  it("the limit is kube's", () => {
    assert.equal(MAX_BODY_DEPTH, 10_000);
  });

  for (const [transport, sender] of transports) {
    const suffix = transport === "HTTP/2" ? "h2" : "h1";
    it(`${transport}: a 10,000-deep JSON body is created, read, listed, updated, patched and applied`, async () => {
      const send = sender();
      const name = `json-${suffix}`;
      const body = treeJson(name, MAX_BODY_DEPTH);
      assert.equal(textDepth(body), MAX_BODY_DEPTH);
      const created = await send("POST", TREES, { body });
      assertOk(created, 201, "create");
      const stored = json(created);
      assert.equal(nestingDepth((stored["spec"] as Json)["deep"], Number.POSITIVE_INFINITY), MAX_BODY_DEPTH - 2);

      const got = await send("GET", `${TREES}/${name}`);
      assertOk(got, 200, "get");
      assert.equal(nestingDepth((json(got)["spec"] as Json)["deep"], Number.POSITIVE_INFINITY), MAX_BODY_DEPTH - 2);
      const listed = await send("GET", TREES);
      assertOk(listed, 200, "list");

      const update = treeJson(name, MAX_BODY_DEPTH, "b").replace(
        `"name":"${name}"`,
        `"name":"${name}","resourceVersion":"${String((stored["metadata"] as Json)["resourceVersion"])}"`,
      );
      assertOk(await send("PUT", `${TREES}/${name}`, { body: update }), 200, "update");

      const merge = `{"spec":{"deep":${chain(MAX_BODY_DEPTH - 2, "c")}}}`;
      assertOk(await send("PATCH", `${TREES}/${name}`, { body: merge, headers: { "content-type": "application/merge-patch+json" } }), 200, "merge patch");
      const jsonPatch = `[{"op":"replace","path":"/spec/deep","value":${chain(MAX_BODY_DEPTH - 3, "d")}}]`;
      assertOk(await send("PATCH", `${TREES}/${name}`, { body: jsonPatch, headers: { "content-type": "application/json-patch+json" } }), 200, "json patch");
      const apply = treeJson(name, MAX_BODY_DEPTH, "e");
      assertOk(
        await send("PATCH", `${TREES}/${name}?fieldManager=deep&force=true`, { body: apply, headers: { "content-type": "application/apply-patch+yaml" } }),
        200,
        "apply",
      );
      // The apply merged its chain beside the patched one: spec.deep is {d: …, e: …}.
      const copyPatch = `[{"op":"copy","from":"/spec/deep/e","path":"/spec/copy"},{"op":"test","path":"/spec/copy","value":${chain(MAX_BODY_DEPTH - 3, "e")}},{"op":"move","from":"/spec/copy","path":"/spec/moved"},{"op":"remove","path":"/spec/moved"}]`;
      assertOk(
        await send("PATCH", `${TREES}/${name}`, { body: copyPatch, headers: { "content-type": "application/json-patch+json" } }),
        200,
        "json patch copy/test/move",
      );
      const failedTest = `[{"op":"test","path":"/spec/deep","value":${chain(MAX_BODY_DEPTH - 3, "x")}}]`;
      const refusedTest = await send("PATCH", `${TREES}/${name}`, { body: failedTest, headers: { "content-type": "application/json-patch+json" } });
      assert.equal(refusedTest.status, 422, refusedTest.body.slice(0, 300));
      assert.equal(json(refusedTest)["message"], "the server rejected our request due to an error in our request");
      const asYaml = await send("GET", `${TREES}/${name}`, { headers: { accept: "application/yaml" } });
      assertOk(asYaml, 200, "get as YAML");
      assert.match(asYaml.body, /^apiVersion: deep\.example\.com\/v1$/m);
      const final = await send("GET", `${TREES}/${name}`);
      assert.equal(nestingDepth((json(final)["spec"] as Json)["deep"], Number.POSITIVE_INFINITY), MAX_BODY_DEPTH - 2);
      assertOk(await send("DELETE", `${TREES}/${name}`), 200, "delete");
    });

    it(`${transport}: a 10,000-deep YAML body is created and applied`, async () => {
      const send = sender();
      const name = `yaml-${suffix}`;
      const created = await send("POST", TREES, { body: treeYaml(name, MAX_BODY_DEPTH), headers: { "content-type": "application/yaml" } });
      assertOk(created, 201, "create");
      assert.equal(nestingDepth((json(created)["spec"] as Json)["deep"], Number.POSITIVE_INFINITY), MAX_BODY_DEPTH - 2);
      const applied = await send("PATCH", `${TREES}/${name}-applied?fieldManager=deep`, {
        body: treeYaml(`${name}-applied`, MAX_BODY_DEPTH, "sequence"),
        headers: { "content-type": "application/apply-patch+yaml" },
      });
      assertOk(applied, 201, "apply");
    });

    it(`${transport}: one level more is refused with kube's 400`, async () => {
      const send = sender();
      const name = `too-deep-${suffix}`;
      assertRefused(await send("POST", TREES, { body: treeJson(name, MAX_BODY_DEPTH + 1) }), "JSON create");
      assertRefused(await send("POST", TREES, { body: treeYaml(name, MAX_BODY_DEPTH + 1), headers: { "content-type": "application/yaml" } }), "YAML create");
      assertRefused(
        await send("PATCH", `${TREES}/${name}?fieldManager=deep`, {
          body: treeJson(name, MAX_BODY_DEPTH + 1),
          headers: { "content-type": "application/apply-patch+yaml" },
        }),
        "apply",
      );
      assert.equal((await send("GET", `${TREES}/${name}`)).status, 404);
    });
  }

  it("a watch delivers a 10,000-deep object", async () => {
    const name = "watched";
    const list = json(await request(server.admin, "GET", TREES));
    const from = String((list["metadata"] as Json)["resourceVersion"]);
    const watching = request(server.admin, "GET", `${TREES}?watch=1&resourceVersion=${from}&timeoutSeconds=3&fieldSelector=metadata.name%3D${name}`, {
      timeoutMs: 30_000,
    });
    assertOk(await request(server.admin, "POST", TREES, { body: treeJson(name, MAX_BODY_DEPTH), timeoutMs: 30_000 }), 201, "create");
    const events = (await watching).body
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Json);
    const added = events.find((event) => event["type"] === "ADDED");
    assert.ok(added !== undefined, "an ADDED event");
    assert.equal(nestingDepth(((added["object"] as Json)["spec"] as Json)["deep"], Number.POSITIVE_INFINITY), MAX_BODY_DEPTH - 2);
  });
});
