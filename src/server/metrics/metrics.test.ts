import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { sample } from "../../testing/metrics-text.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

describe("/metrics", () => {
  let server: Server;
  before(async () => {
    server = await inProcessServer();
  });
  after(async () => {
    await server.stop();
  });

  it("counts deprecated versions requested, with the release they are removed in", async () => {
    const before = await server.call("GET", "/metrics");
    assert.equal(
      sample(before.text, "apiserver_requested_deprecated_apis", { group: "policy", version: "v1beta1", resource: "poddisruptionbudgets" }),
      undefined,
    );
    const listed = await server.call("GET", "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets");
    assert.equal(listed.status, 200);
    assert.ok(String(listed.headers["warning"]).includes("deprecated"));
    await server.call("GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets");
    const metrics = await server.call("GET", "/metrics");
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    assert.equal(
      sample(metrics.text, "apiserver_requested_deprecated_apis", {
        group: "policy",
        version: "v1beta1",
        resource: "poddisruptionbudgets",
        subresource: "",
        removed_release: "1.25",
      }),
      1,
    );
    assert.equal(sample(metrics.text, "apiserver_requested_deprecated_apis", { group: "policy", version: "v1" }), undefined, "v1 is not deprecated");
    // kube's ComponentStatus: deprecated without a removal release.
    const statuses = await server.call("GET", "/api/v1/componentstatuses");
    assert.equal(statuses.status, 200);
    assert.deepEqual([statuses.headers["warning"]].flat(), ['299 - "v1 ComponentStatus is deprecated in v1.19+"']);
    assert.equal(
      sample((await server.call("GET", "/metrics")).text, "apiserver_requested_deprecated_apis", {
        group: "",
        version: "v1",
        resource: "componentstatuses",
        subresource: "",
        removed_release: "",
      }),
      1,
    );
  });

  it("counts requests by kube's verb names, scope and response code", async () => {
    const name = "metrics-counted";
    await server.call("POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name } } });
    await server.call("GET", `/api/v1/namespaces/default/configmaps/${name}`);
    await server.call("GET", `/api/v1/namespaces/default/configmaps/${name}`);
    await server.call("GET", "/api/v1/namespaces/default/configmaps/metrics-missing");
    await server.call("PATCH", `/api/v1/namespaces/default/configmaps/${name}?fieldManager=m`, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } },
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    await server.call("GET", "/api/v1/configmaps");
    const text = (await server.call("GET", "/metrics")).text;
    const count = (labels: Record<string, string>): number | undefined =>
      sample(text, "apiserver_request_total", { group: "", version: "v1", resource: "configmaps", component: "apiserver", ...labels });
    assert.equal(count({ verb: "POST", scope: "resource", code: "201" }) ?? count({ verb: "POST", scope: "namespace", code: "201" }), 1);
    assert.equal(count({ verb: "GET", scope: "resource", code: "200" }), 2);
    assert.equal(count({ verb: "GET", scope: "resource", code: "404" }), 1);
    assert.equal(count({ verb: "APPLY", scope: "resource", code: "200" }), 1);
    assert.equal(count({ verb: "LIST", scope: "cluster", code: "200" }), 1);
    assert.ok((sample(text, "apiserver_request_duration_seconds_count", { verb: "GET", resource: "configmaps", scope: "resource" }) ?? 0) >= 3);
  });

  it("labels /livez, /readyz and /healthz as kube instruments them: the path as subresource, no component", async () => {
    await server.call("GET", "/livez");
    await server.call("GET", "/livez?verbose");
    await server.call("GET", "/readyz");
    await server.call("GET", "/healthz");
    await server.call("GET", "/version");
    const text = (await server.call("GET", "/metrics")).text;
    const health = (path: string): number | undefined =>
      sample(text, "apiserver_request_total", { verb: "GET", group: "", version: "", resource: "", subresource: path, scope: "", component: "", code: "200" });
    assert.equal(health("/livez"), 2);
    assert.equal(health("/readyz"), 1);
    assert.equal(health("/healthz"), 1);
    assert.equal(sample(text, "apiserver_request_duration_seconds_count", { verb: "GET", subresource: "/livez", component: "" }), 2);
    // Other non-resource paths keep empty labels and the apiserver component.
    assert.ok((sample(text, "apiserver_request_total", { verb: "GET", resource: "", subresource: "", component: "apiserver", code: "200" }) ?? 0) >= 1);
  });

  it("is authorized as a non-resource URL: a user without a role is refused", async () => {
    const refused = await server.call("GET", "/metrics", { as: "alice" });
    assert.equal(refused.status, 403);
    assert.equal(refused.json["reason"], "Forbidden");
  });

  it("keeps each server's counts apart", async () => {
    const other = await inProcessServer();
    try {
      const text = (await other.call("GET", "/metrics")).text;
      assert.equal(sample(text, "apiserver_requested_deprecated_apis", { group: "policy", version: "v1beta1" }), undefined);
    } finally {
      await other.stop();
    }
  });
});
