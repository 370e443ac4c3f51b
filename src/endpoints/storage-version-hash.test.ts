import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../api/profile.js";
import { inProcessServer } from "../testing/in-process.js";
import { storageVersionHash } from "./discovery.js";

type Json = Record<string, unknown>;

function entries(json: Json): Json[] {
  return json["resources"] as Json[];
}

function entry(list: readonly Json[], name: string): Json {
  const found = list.find((resource) => resource["name"] === name);
  assert.ok(found !== undefined, `${name} is listed`);
  return found;
}

async function settled(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail("not served in time");
}

describe("storageVersionHash in legacy discovery", () => {
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({ profile: KUBERNETES_PROFILE, controllers: [] });
  });
  after(async () => {
    await server.stop();
  });

  it("storageVersionHash() gives kube's values (pods, configmaps, deployments as real clusters list them)", () => {
    assert.equal(storageVersionHash("", "v1", "Pod"), "xPOwRZ+Yhw8=");
    assert.equal(storageVersionHash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
    assert.equal(storageVersionHash("apps", "v1", "Deployment"), "8aSe+NMegvE=");
  });

  it("names the storage version's hash on each stored resource, none on sub-resources or unstored kinds", async () => {
    const core = entries((await server.call("GET", "/api/v1")).json);
    assert.equal(entry(core, "pods")["storageVersionHash"], "xPOwRZ+Yhw8=");
    assert.equal(entry(core, "configmaps")["storageVersionHash"], "qFsyl6wFWjQ=");
    for (const name of ["pods/status", "pods/log", "bindings", "componentstatuses"]) assert.equal(entry(core, name)["storageVersionHash"], undefined, name);
    const apps = entries((await server.call("GET", "/apis/apps/v1")).json);
    assert.equal(entry(apps, "deployments")["storageVersionHash"], "8aSe+NMegvE=");
    const reviews = entries((await server.call("GET", "/apis/authorization.k8s.io/v1")).json);
    assert.equal(entry(reviews, "subjectaccessreviews")["storageVersionHash"], undefined);
  });

  it("gives every served version of one stored kind the storage version's hash", async () => {
    const stored = storageVersionHash("autoscaling", "v2", "HorizontalPodAutoscaler");
    for (const version of ["v1", "v2"]) {
      const list = entries((await server.call("GET", `/apis/autoscaling/${version}`)).json);
      assert.equal(entry(list, "horizontalpodautoscalers")["storageVersionHash"], stored, version);
    }
    // events.k8s.io Events are core Events in storage, as kube keeps them.
    const events = entries((await server.call("GET", "/apis/events.k8s.io/v1")).json);
    assert.equal(entry(events, "events")["storageVersionHash"], storageVersionHash("", "v1", "Event"));
  });

  it("hashes a custom resource by its definition's storage version", async () => {
    const schema = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.hash.example.com" },
      spec: {
        group: "hash.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          { name: "v1", served: true, storage: false, schema },
          { name: "v2", served: true, storage: true, schema },
        ],
      },
    };
    const created = await server.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd });
    assert.equal(created.status, 201, created.text);
    const expected = storageVersionHash("hash.example.com", "v2", "Widget");
    for (const version of ["v1", "v2"]) {
      await settled(async () => (await server.call("GET", `/apis/hash.example.com/${version}`)).status === 200);
      const list = entries((await server.call("GET", `/apis/hash.example.com/${version}`)).json);
      assert.equal(entry(list, "widgets")["storageVersionHash"], expected, version);
    }
  });
});
