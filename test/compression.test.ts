// Response compression (APIResponseCompression): large answers go out gzipped to clients that accept it; real kubectl reads them.
import assert from "node:assert/strict";
import https from "node:https";
import { gunzipSync } from "node:zlib";
import { before, describe, it } from "node:test";
import { featureGates } from "../src/util/feature-gates.js";
import { request, type Credentials } from "./helpers/http.js";
import { kubectlFor, resolveKubectl } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";

const KUBECTL = resolveKubectl("newest");

/** A GET whose body is kept as bytes, with the Accept-Encoding given. */
function rawGet(credentials: Credentials, path: string, acceptEncoding?: string): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json", ...(acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding }) };
    const req = https.request(
      new URL(path, credentials.url),
      { headers, ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
        response.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Three config maps of 60 kB each: a list of them is over kube's 128 KiB threshold, each one under it. */
async function fill(credentials: Credentials): Promise<void> {
  for (const name of ["a", "b", "c"]) {
    const created = await request(credentials, "POST", "/api/v1/namespaces/default/configmaps", {
      body: { metadata: { name, labels: { fill: "yes" } }, data: { blob: name.repeat(60_000) } },
    });
    assert.equal(created.status, 201, created.body);
  }
}

describe("response compression", () => {
  const server = useTestServer();
  before(() => fill(server().admin));

  it("gzips a list over 128 KiB when the client accepts gzip", async () => {
    const response = await rawGet(server().admin, "/api/v1/namespaces/default/configmaps?labelSelector=fill%3Dyes", "gzip, deflate");
    assert.equal(response.headers["content-encoding"], "gzip");
    assert.match(String(response.headers["vary"]), /Accept-Encoding/);
    const list = JSON.parse(gunzipSync(response.body).toString("utf8")) as { items: unknown[] };
    assert.equal(list.items.length, 3);
    assert.ok(response.body.length < 20_000, `compressed to ${response.body.length} bytes`);
  });

  it("gzips a streamed list whole: 300 items over 128 KiB arrive with the gzip trailer", async () => {
    for (let index = 0; index < 300; index++) {
      const created = await request(server().admin, "POST", "/api/v1/namespaces/default/configmaps", {
        body: { metadata: { name: `many-${index}`, labels: { many: "yes" } }, data: { v: "m".repeat(600) } },
      });
      assert.equal(created.status, 201, created.body);
    }
    const response = await rawGet(server().admin, "/api/v1/namespaces/default/configmaps?labelSelector=many%3Dyes", "gzip");
    assert.equal(response.headers["content-encoding"], "gzip");
    const list = JSON.parse(gunzipSync(response.body).toString("utf8")) as { items: unknown[] };
    assert.equal(list.items.length, 300);
  });

  it("sends it as it is without Accept-Encoding, and small answers as they are", async () => {
    const plain = await rawGet(server().admin, "/api/v1/namespaces/default/configmaps?labelSelector=fill%3Dyes");
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal((JSON.parse(plain.body.toString("utf8")) as { items: unknown[] }).items.length, 3);
    const small = await rawGet(server().admin, "/api/v1/namespaces/default/configmaps/a", "gzip");
    assert.equal(small.headers["content-encoding"], undefined);
  });

  it("gzips the OpenAPI v2 document once and sends the same bytes to every client that accepts gzip", async () => {
    const plain = await rawGet(server().admin, "/openapi/v2");
    const first = await rawGet(server().admin, "/openapi/v2", "gzip");
    const second = await rawGet(server().admin, "/openapi/v2", "gzip");
    assert.equal(first.headers["content-encoding"], "gzip");
    assert.equal(first.headers["etag"], plain.headers["etag"]);
    assert.deepEqual(gunzipSync(first.body), plain.body);
    assert.deepEqual(second.body, first.body);
  });

  it(`kubectl ${KUBECTL.version} (which asks for gzip) reads the compressed list`, async () => {
    const kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir, KUBECTL);
    const result = await kubectl(["get", "configmaps", "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const list = JSON.parse(result.stdout) as { items: { metadata: { name: string }; data: { blob: string } }[] };
    assert.deepEqual(
      list.items.map((item) => item.metadata.name).filter((name) => name.length === 1),
      ["a", "b", "c"],
    );
    assert.equal(list.items.find((item) => item.metadata.name === "b")?.data.blob.length, 60_000);
  });
});

describe("response compression with --feature-gates=APIResponseCompression=false", () => {
  const server = useTestServer({ featureGates: featureGates(new Map([["APIResponseCompression", false]])) });
  before(() => fill(server().admin));

  it("never gzips", async () => {
    const response = await rawGet(server().admin, "/api/v1/namespaces/default/configmaps?labelSelector=fill%3Dyes", "gzip");
    assert.equal(response.headers["content-encoding"], undefined);
    assert.equal((JSON.parse(response.body.toString("utf8")) as { items: unknown[] }).items.length, 3);
    // Kept documents offer their kept gzip; the gate still decides.
    const openApi = await rawGet(server().admin, "/openapi/v2", "gzip");
    assert.equal(openApi.headers["content-encoding"], undefined);
    assert.ok(openApi.body.length > 128 * 1024);
  });
});
