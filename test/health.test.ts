// Health endpoints per named check (/livez/<check>, /readyz/<check>, /healthz/<check>, ?exclude=) and readiness on shutdown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { request } from "./helpers/http.js";
import { startTestServer, useTestServer } from "./helpers/server.js";

/** kube-controller-manager's controllers: each served at /readyz/controller-<name>, none part of the whole /readyz (kube's does not wait for them). */
const CONTROLLER_CHECKS = [
  "garbagecollector",
  "namespace",
  "resourcequota",
  "clusterrole-aggregation",
  "serviceaccount",
  "serviceaccount-token",
  "root-ca-cert-publisher",
  "csrsigning",
  "csrapproving",
  "csrcleaner",
  "endpoint",
  "endpointslice",
  "endpointslicemirroring",
  "customresourcedefinitions",
  "validatingadmissionpolicy-status",
  "storage-protection",
  "allocation-repair",
  "apiserver-service",
].map((controller) => `controller-${controller}`);

/** kube-apiserver's readiness checks, in the order /readyz?verbose lists them. */
const READYZ_CHECKS = [
  "ping",
  "log",
  "storage",
  "informer-sync",
  "poststarthook/rbac/bootstrap-roles",
  "poststarthook/start-system-namespaces-controller",
  "poststarthook/scheduling/bootstrap-system-priority-classes",
  "poststarthook/start-cluster-controllers",
  "crd-informer-synced",
  "shutdown",
];

describe("health checks by name", () => {
  const server = useTestServer();

  it("/readyz?verbose names every check; /livez and /healthz leave out readiness-only ones", async () => {
    const readyz = await request(server().admin, "GET", "/readyz?verbose");
    assert.equal(readyz.status, 200);
    assert.deepEqual(readyz.body.trimEnd().split("\n"), [...READYZ_CHECKS.map((name) => `[+]${name} ok`), "readyz check passed"]);
    for (const kind of ["livez", "healthz"]) {
      const response = await request(server().admin, "GET", `/${kind}?verbose`);
      assert.equal(response.status, 200);
      assert.doesNotMatch(response.body, /shutdown|informer-sync/);
      assert.match(response.body, /\[\+\]poststarthook\/rbac\/bootstrap-roles ok/);
      assert.match(response.body, new RegExp(`${kind} check passed\\n$`));
    }
  });

  it("serves each named check at /<kind>/<name>, and 404 for an unknown name", async () => {
    for (const name of [...READYZ_CHECKS, ...CONTROLLER_CHECKS]) {
      const response = await request(server().admin, "GET", `/readyz/${name}`);
      assert.equal(response.status, 200, name);
      assert.equal(response.body, "ok");
    }
    assert.equal((await request(server().admin, "GET", "/livez/ping")).body, "ok");
    assert.equal((await request(server().admin, "GET", "/healthz/poststarthook/start-cluster-controllers")).status, 200);
    assert.equal((await request(server().admin, "GET", "/readyz/no-such-check")).status, 404);
    assert.equal((await request(server().admin, "GET", "/livez/shutdown")).status, 404);
  });

  it("?exclude= skips checks (repeatable) and warns about names it does not know", async () => {
    const response = await request(server().admin, "GET", "/readyz?verbose&exclude=storage&exclude=shutdown&exclude=nothing");
    assert.equal(response.status, 200);
    assert.match(response.body, /\[\+\]storage excluded: ok\n/);
    assert.match(response.body, /\[\+\]shutdown excluded: ok\n/);
    assert.match(response.body, /warn: some health checks cannot be excluded: no matches for "nothing"/);
  });
});

describe("readiness on shutdown (--shutdown-delay-duration)", () => {
  it("fails /readyz (the shutdown check) while the listener still serves, then stops", async () => {
    const server = await startTestServer({ shutdownDelayMs: 4_000 });
    const stopping = server.close();
    try {
      const readyz = await request(server.admin, "GET", "/readyz?verbose");
      assert.equal(readyz.status, 500);
      assert.match(readyz.body, /\[-\]shutdown failed: reason withheld\n/);
      assert.match(readyz.body, /readyz check failed\n$/);
      const single = await request(server.admin, "GET", "/readyz/shutdown");
      assert.equal(single.status, 500);
      assert.match(single.body, /shutting down/);
      assert.equal((await request(server.admin, "GET", "/livez")).status, 200);
      // Ordinary requests are still served during the delay.
      assert.equal((await request(server.admin, "GET", "/api/v1/namespaces/default")).status, 200);
    } finally {
      await stopping;
    }
    await assert.rejects(request(server.admin, "GET", "/livez"));
  });
});
