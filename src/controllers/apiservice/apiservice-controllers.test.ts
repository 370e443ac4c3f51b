import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../api/profile.js";
import { startAggregatedServer, type TestAggregatedServer } from "../../testing/aggregated-server.js";
import { inProcessServer } from "../../testing/in-process.js";
import { generateTestPki } from "../../testing/webhook-server.js";

type Json = Record<string, unknown>;

const APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";
const LABEL = "kube-aggregator.kubernetes.io/automanaged";
const DISCOVERY_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

async function poll<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}${last === undefined ? "" : ` (${String(last)})`}`);
}

describe("APIService registration, availability and aggregated discovery (kubernetes profile)", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  let backend: TestAggregatedServer;
  const pki = generateTestPki(["backend.default.svc"]);
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE });
    backend = await startAggregatedServer(pki, "widgets.example.com", "v1");
  });
  after(async () => {
    await backend.close();
    await server.stop();
  });

  const availability = async (name: string): Promise<Json | undefined> => {
    const got = await server.call("GET", `${APISERVICES}/${name}`);
    const conditions = ((got.json["status"] as Json | undefined)?.["conditions"] ?? []) as Json[];
    return conditions.find((condition) => condition["type"] === "Available");
  };
  const until = (name: string, reason: string): Promise<Json> =>
    poll(`${name} ${reason}`, async () => {
      const condition = await availability(name);
      return condition?.["reason"] === reason ? condition : undefined;
    });

  it("registers a local APIService for each built-in group version, with kube's priorities, labelled onstart and Available (Local)", async () => {
    const apps = await poll("v1.apps", async () => {
      const got = await server.call("GET", `${APISERVICES}/v1.apps`);
      return got.status === 200 ? got.json : undefined;
    });
    assert.deepEqual(apps["spec"], { group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.equal((apps["metadata"] as Json)["labels"] && ((apps["metadata"] as Json)["labels"] as Json)[LABEL], "onstart");
    const names = ((await server.call("GET", APISERVICES)).json["items"] as Json[]).map((item) => (item["metadata"] as Json)["name"]);
    for (const name of ["v1.", "v1.rbac.authorization.k8s.io", "v2.autoscaling", "v1.apiextensions.k8s.io", "v1beta3.flowcontrol.apiserver.k8s.io"])
      assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
    const core = await until("v1.", "Local");
    assert.deepEqual([core["status"], core["message"]], ["True", "Local APIServices are always available"]);
    const autoscaling = (await server.call("GET", `${APISERVICES}/v2.autoscaling`)).json["spec"] as Json;
    assert.deepEqual([autoscaling["groupPriorityMinimum"], autoscaling["versionPriority"]], [17500, 30]);
  });

  it("keeps custom resources' group versions registered (labelled true) as definitions come and go", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gadgets.stuff.example.com" },
      spec: {
        group: "stuff.example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", kind: "Gadget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    assert.equal((await server.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status, 201);
    const registered = await poll("v1.stuff.example.com", async () => {
      const got = await server.call("GET", `${APISERVICES}/v1.stuff.example.com`);
      return got.status === 200 ? got.json : undefined;
    });
    assert.deepEqual(registered["spec"], { group: "stuff.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.equal(((registered["metadata"] as Json)["labels"] as Json)[LABEL], "true");
    assert.equal((await server.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.stuff.example.com")).status, 200);
    await poll("v1.stuff.example.com gone", async () => ((await server.call("GET", `${APISERVICES}/v1.stuff.example.com`)).status === 404 ? true : undefined));
  });

  it("reports a service-backed APIService False with kube's reasons until its server answers discovery, then True (Passed)", async () => {
    const apiService = {
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      metadata: { name: "v1.widgets.example.com" },
      spec: {
        group: "widgets.example.com",
        version: "v1",
        groupPriorityMinimum: 100,
        versionPriority: 100,
        caBundle: pki.caBundle,
        service: { namespace: "default", name: "backend", port: 443 },
      },
    };
    assert.equal((await server.call("POST", APISERVICES, { body: apiService })).status, 201);
    const notFound = await until("v1.widgets.example.com", "ServiceNotFound");
    assert.deepEqual([notFound["status"], notFound["message"]], ["False", 'service/backend in "default" is not present']);

    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "backend" }, spec: { ports: [{ name: "https", port: 8443 }] } };
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/services", { body: service })).status, 201);
    assert.equal((await until("v1.widgets.example.com", "ServicePortError"))["message"], 'service/backend in "default" is not listening on port 443');

    const ports = [{ name: "https", port: 443 }];
    assert.equal(
      (
        await server.call("PATCH", "/api/v1/namespaces/default/services/backend", {
          body: { spec: { ports } },
          headers: { "content-type": "application/merge-patch+json" },
        })
      ).status,
      200,
    );
    assert.equal((await until("v1.widgets.example.com", "EndpointsNotFound"))["message"], 'cannot find endpoints for service/backend in "default"');

    const endpoints = (subsets: Json[]): Json => ({ apiVersion: "v1", kind: "Endpoints", metadata: { name: "backend" }, subsets });
    const unready = [{ notReadyAddresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: backend.port }] }];
    assert.equal((await server.call("POST", "/api/v1/namespaces/default/endpoints", { body: endpoints(unready) })).status, 201);
    assert.equal(
      (await until("v1.widgets.example.com", "MissingEndpoints"))["message"],
      'endpoints for service/backend in "default" have no addresses with port name "https"',
    );

    backend.healthy = false;
    assert.equal(
      (
        await server.call("PUT", "/api/v1/namespaces/default/endpoints/backend", {
          body: endpoints([{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: backend.port }] }]),
        })
      ).status,
      200,
    );
    const failed = await until("v1.widgets.example.com", "FailedDiscoveryCheck");
    const url = `https://127.0.0.1:${backend.port}/apis/widgets.example.com/v1`;
    assert.equal(failed["message"], `failing or missing response from ${url}: bad status from ${url}: 503`);
    const failedAt = failed["lastTransitionTime"];

    backend.healthy = true;
    // A change of the Endpoints checks again at once (otherwise the periodic recheck would).
    assert.equal(
      (
        await server.call("PATCH", "/api/v1/namespaces/default/endpoints/backend", {
          body: { metadata: { labels: { touched: "yes" } } },
          headers: { "content-type": "application/merge-patch+json" },
        })
      ).status,
      200,
    );
    const passed = await until("v1.widgets.example.com", "Passed");
    assert.deepEqual([passed["status"], passed["message"]], ["True", "all checks passed"]);
    assert.ok(String(passed["lastTransitionTime"]) >= String(failedAt));
    const probe = backend.received.find(
      (request) => request.target === "/apis/widgets.example.com/v1" && request.headers["x-remote-user"] === "system:kube-aggregator",
    );
    assert.ok(probe !== undefined, "the check calls as the aggregator");
    assert.equal(probe.headers["x-remote-group"], "system:masters");
  });

  it("lists the aggregated group in /apis by its priority and proxies its requests with the user in front-proxy headers", async () => {
    const groups = ((await server.call("GET", "/apis")).json["groups"] as Json[]).map((group) => group["name"]);
    assert.equal(groups.at(-1), "widgets.example.com", "priority 100 sorts after every built-in and custom group");
    const list = await poll("proxied list", async () => {
      const got = await server.call("GET", "/apis/widgets.example.com/v1/namespaces/default/widgets");
      return got.status === 200 ? got.json : undefined;
    });
    assert.equal(((list["items"] as Json[])[0]?.["metadata"] as Json)["name"], "first");
    const seen = [...backend.received].reverse().find((request) => request.target === "/apis/widgets.example.com/v1/namespaces/default/widgets");
    assert.equal(seen?.headers["x-remote-user"], "admin");
    assert.equal(seen?.headers["authorization"], undefined, "the client's credentials stay here");
    const discovery = await poll("aggregated discovery of the backend's resources", async () => {
      const got = await server.call("GET", "/apis", { headers: { accept: DISCOVERY_V2 } });
      const entry = (got.json["items"] as Json[]).find((item) => (item["metadata"] as Json)["name"] === "widgets.example.com");
      const version = (entry?.["versions"] as Json[] | undefined)?.[0];
      return version?.["freshness"] === "Current" ? version : undefined;
    });
    assert.deepEqual(
      (discovery["resources"] as Json[]).map((resource) => [
        resource["resource"],
        resource["scope"],
        (resource["subresources"] as Json[] | undefined)?.[0]?.["subresource"],
      ]),
      [["widgets", "Namespaced", "status"]],
    );
  });

  it("answers 503 ServiceUnavailable under an unavailable aggregated group version, which aggregated discovery lists Stale", async () => {
    backend.healthy = false;
    await server.call("PATCH", "/api/v1/namespaces/default/endpoints/backend", {
      body: { metadata: { labels: { touched: "again" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    await until("v1.widgets.example.com", "FailedDiscoveryCheck");
    for (const path of ["/apis/widgets.example.com/v1", "/apis/widgets.example.com/v1/namespaces/default/widgets"]) {
      const got = await server.call("GET", path);
      assert.equal(got.status, 503, got.text);
      assert.deepEqual(
        [got.json["reason"], got.json["message"], got.json["code"]],
        ["ServiceUnavailable", "the server is currently unable to handle the request", 503],
      );
    }
    const group = await server.call("GET", "/apis/widgets.example.com");
    assert.equal(group.status, 200, "the group itself is served from its APIServices");
    const stale = await poll("stale", async () => {
      const got = await server.call("GET", "/apis", { headers: { accept: DISCOVERY_V2 } });
      const entry = (got.json["items"] as Json[]).find((item) => (item["metadata"] as Json)["name"] === "widgets.example.com");
      const version = (entry?.["versions"] as Json[] | undefined)?.[0];
      return version?.["freshness"] === "Stale" ? version : undefined;
    });
    assert.equal(stale["version"], "v1");
    backend.healthy = true;
  });
});
