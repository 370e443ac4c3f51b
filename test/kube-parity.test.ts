// Behaviours where kube-apiserver is the reference; each was once a deviation found by the integration suite.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { configMap, json, request } from "./helpers/http.js";
import { startTestServer, useTestServer } from "./helpers/server.js";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

describe("parity with kube-apiserver", () => {
  const server = useTestServer({ storageBackend: "memory" });

  it("DELETE on the all-namespaces path of a namespaced resource is 405 and deletes nothing", async () => {
    const admin = server().admin;
    assert.equal((await request(admin, "POST", "/api/v1/namespaces/orch-system/configmaps", { body: configMap("precious") })).status, 201);
    const result = await request(admin, "DELETE", "/api/v1/configmaps");
    const still = await request(admin, "GET", "/api/v1/namespaces/orch-system/configmaps/precious");
    assert.equal(still.status, 200, "a DELETE on /api/v1/configmaps must not delete objects in any namespace");
    assert.equal(result.status, 405);
  });

  it("PUT and PATCH on a collection path are 405 MethodNotAllowed", async () => {
    const admin = server().admin;
    const put = await request(admin, "PUT", CONFIGMAPS, { body: configMap("x") });
    assert.equal(put.status, 405, put.body);
    const patch = await request(admin, "PATCH", CONFIGMAPS, { body: {}, headers: { "content-type": "application/merge-patch+json" } });
    assert.equal(patch.status, 405, patch.body);
  });

  it("PUT with a metadata.uid that differs from the stored object's is a 409 Conflict", async () => {
    const admin = server().admin;
    const created = json(await request(admin, "POST", CONFIGMAPS, { body: configMap("uid-check", { a: "1" }) }));
    const metadata = created["metadata"] as Record<string, unknown>;
    const result = await request(admin, "PUT", `${CONFIGMAPS}/uid-check`, {
      body: { ...created, metadata: { ...metadata, uid: "00000000-0000-0000-0000-000000000000" }, data: { a: "2" } },
    });
    assert.equal(result.status, 409, result.body);
    assert.equal(json(result)["reason"], "Conflict");
  });

  it("YAML responses quote timestamps as kube's serializer does", async () => {
    const admin = server().admin;
    await request(admin, "POST", CONFIGMAPS, { body: configMap("yaml-check") });
    const result = await request(admin, "GET", `${CONFIGMAPS}/yaml-check`, { headers: { accept: "application/yaml" } });
    assert.equal(result.status, 200);
    assert.match(result.body, /creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
  });

  it("every answer says Cache-Control: no-cache, private unless its handler chose otherwise (kube's filter)", async () => {
    const admin = server().admin;
    const anonymous = { url: server().server.url, ca: server().server.caCertificate };
    const answers = [
      await request(admin, "GET", "/api/v1/namespaces"),
      await request(admin, "GET", `${CONFIGMAPS}/missing`),
      await request(admin, "GET", "/apis"),
      await request(admin, "GET", "/version"),
      await request(anonymous, "GET", "/readyz", { headers: { accept: "*/*" } }),
      await request(anonymous, "GET", "/api/v1/secrets"),
      await request({ ...anonymous, token: "not-a-token" }, "GET", "/api/v1/secrets"),
    ];
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.headers["cache-control"]]),
      [
        [200, "no-cache, private"],
        [404, "no-cache, private"],
        [200, "no-cache, private"],
        [200, "no-cache, private"],
        [200, "no-cache, private"],
        [403, "no-cache, private"],
        [401, "no-cache, private"],
      ],
    );
    const root = json(await request(admin, "GET", "/openapi/v3"));
    const url = (root["paths"] as Record<string, { serverRelativeURL: string }>)["api/v1"]?.serverRelativeURL ?? "";
    assert.equal((await request(admin, "GET", url)).headers["cache-control"], "public, immutable");
  });

  it('a create naming a resourceVersion is refused as kube\'s storage refuses it: 500 without a reason (dry run and "0" pass)', async () => {
    const admin = server().admin;
    const body = (name: string, resourceVersion: string): Record<string, unknown> => ({ ...configMap(name), metadata: { name, resourceVersion } });
    const refused = await request(admin, "POST", CONFIGMAPS, { body: body("rv-set", "42") });
    assert.equal(refused.status, 500, refused.body);
    const status = json(refused);
    assert.equal(status["message"], "resourceVersion should not be set on objects to be created");
    assert.equal(status["reason"], undefined);
    assert.equal((await request(admin, "GET", `${CONFIGMAPS}/rv-set`)).status, 404);
    assert.equal((await request(admin, "POST", `${CONFIGMAPS}?dryRun=All`, { body: body("rv-set", "42") })).status, 201);
    assert.equal((await request(admin, "POST", CONFIGMAPS, { body: body("rv-zero", "0") })).status, 201);
    // Before the existence check, as kube's storage: an existing name is the same 500, not 409.
    assert.equal((await request(admin, "POST", CONFIGMAPS, { body: body("rv-zero", "7") })).status, 500);
  });

  it("an Authorization header that is not a bearer token is ignored (anonymous), not 401", async () => {
    const result = await request({ url: server().server.url, ca: server().server.caCertificate }, "GET", "/readyz", {
      headers: { authorization: `Basic ${Buffer.from("user:pass").toString("base64")}`, accept: "*/*" },
    });
    assert.equal(result.status, 200, result.body);
  });

  it("streaming a large list over HTTP/1.1 does not leak listeners on the response", async () => {
    const admin = server().admin;
    await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        request(admin, "POST", "/api/v1/namespaces/orch-public/configmaps", { body: configMap(`big-${index}`, { blob: "x".repeat(8_192) }) }),
      ),
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const result = await request(admin, "GET", "/api/v1/namespaces/orch-public/configmaps");
      assert.equal(result.status, 200);
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    assert.deepEqual(
      warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning")),
      [],
    );
  });

  it("stop() finishes within the grace period while a client holds a connection without a TLS handshake", async () => {
    const other = await startTestServer({ storageBackend: "memory", shutdownGraceMs: 200 });
    const socket = connect(other.server.port, "127.0.0.1");
    socket.on("error", () => {});
    try {
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        other.server.stop().then(() => "stopped" as const),
        new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 2_000))),
      ]);
      clearTimeout(timer);
      assert.equal(outcome, "stopped", "stop() must not wait for a client that never starts TLS");
    } finally {
      socket.destroy();
      await other.close();
    }
  });
});
