// @kubernetes/client-node 1.x (the official JavaScript client) against an in-process server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const NAMESPACE = "default";

function isApiException(code: number): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof k8s.ApiException, `expected an ApiException, got ${String(error)}`);
    assert.equal(error.code, code, `expected HTTP ${code}, got ${error.code}: ${String(error.body)}`);
    return true;
  };
}

describe("@kubernetes/client-node against the server", () => {
  const server = useTestServer({ storageBackend: "memory" });
  let config: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  before(() => {
    config = new k8s.KubeConfig();
    config.loadFromString(server().server.kubeconfig);
    core = config.makeApiClient(k8s.CoreV1Api);
  });

  it("creates and reads a configmap", async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: NAMESPACE,
      body: { metadata: { name: "client-a", labels: { app: "client" } }, data: { greeting: "hello" } },
    });
    assert.equal(created.metadata?.name, "client-a");
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.resourceVersion);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, "creationTimestamp should deserialize to a Date");
    const read = await core.readNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a" });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    assert.deepEqual(read.data, { greeting: "hello" });
  });

  it("reading a missing configmap is a 404 ApiException", async () => {
    await assert.rejects(core.readNamespacedConfigMap({ namespace: NAMESPACE, name: "no-such" }), isApiException(404));
  });

  it("creating a configmap twice is a 409 ApiException", async () => {
    await assert.rejects(core.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name: "client-a" } } }), isApiException(409));
  });

  it("lists configmaps with a label selector", async () => {
    await core.createNamespacedConfigMap({ namespace: NAMESPACE, body: { metadata: { name: "client-b", labels: { app: "other" } } } });
    const selected = await core.listNamespacedConfigMap({ namespace: NAMESPACE, labelSelector: "app=client" });
    assert.deepEqual(
      selected.items.map((item) => item.metadata?.name),
      ["client-a"],
    );
    assert.ok(selected.metadata?.resourceVersion, "a list carries a resourceVersion");
    const both = await core.listNamespacedConfigMap({ namespace: NAMESPACE, labelSelector: "app in (client,other)" });
    assert.deepEqual(both.items.map((item) => item.metadata?.name).sort(), ["client-a", "client-b"]);
  });

  it("replace with a stale resourceVersion is a 409 Conflict", async () => {
    const current = await core.readNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a" });
    const replaced = await core.replaceNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a", body: { ...current, data: { greeting: "updated" } } });
    assert.notEqual(replaced.metadata?.resourceVersion, current.metadata?.resourceVersion);
    assert.equal(replaced.metadata?.uid, current.metadata?.uid);
    await assert.rejects(
      core.replaceNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a", body: { ...current, data: { greeting: "stale" } } }),
      (error: unknown) => {
        isApiException(409)(error);
        const body = JSON.parse(String((error as k8s.ApiException<unknown>).body)) as { kind?: string; reason?: string };
        assert.equal(body.kind, "Status");
        assert.equal(body.reason, "Conflict");
        return true;
      },
    );
    const after = await core.readNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a" });
    assert.deepEqual(after.data, { greeting: "updated" });
  });

  it("patches with a JSON merge patch (Content-Type set by a middleware)", async () => {
    const patched = await core.patchNamespacedConfigMap(
      { namespace: NAMESPACE, name: "client-a", body: { data: { added: "yes", greeting: null } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.data, { added: "yes" });
  });

  it("patches with a JSON patch (the client's default content type)", async () => {
    const patched = await core.patchNamespacedConfigMap({ namespace: NAMESPACE, name: "client-a", body: [{ op: "add", path: "/data/json", value: "patch" }] });
    assert.deepEqual(patched.data, { added: "yes", json: "patch" });
  });

  it("deletes a configmap", async () => {
    await core.deleteNamespacedConfigMap({ namespace: NAMESPACE, name: "client-b" });
    await assert.rejects(core.readNamespacedConfigMap({ namespace: NAMESPACE, name: "client-b" }), isApiException(404));
    await assert.rejects(core.deleteNamespacedConfigMap({ namespace: NAMESPACE, name: "client-b" }), isApiException(404));
  });

  it("lists namespaces", async () => {
    const list = await core.listNamespace();
    const names = list.items.map((item) => item.metadata?.name);
    for (const name of ["default", "orch-system", "orch-public", "orch-node-lease"]) assert.ok(names.includes(name), `missing ${name}`);
    const defaultNs = list.items.find((item) => item.metadata?.name === "default");
    assert.equal(defaultNs?.status?.phase, "Active");
  });

  describe("an informer on configmaps", () => {
    const namespace = "informed";
    const events: { verb: string; name: string; data?: Record<string, string> }[] = [];
    const errors: unknown[] = [];
    let informer: k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap>;

    before(async () => {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "pre-existing" } } });
      informer = k8s.makeInformer(config, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
      for (const verb of [k8s.ADD, k8s.UPDATE, k8s.DELETE] as const) {
        informer.on(verb, (object) => events.push({ verb, name: object.metadata?.name ?? "", data: object.data }));
      }
      informer.on(k8s.ERROR, (error) => errors.push(error));
      // Resolves once the initial list is cached and the watch request has been answered.
      await informer.start();
    });

    after(async () => {
      await informer?.stop();
    });

    const seen =
      (verb: string, name: string, check: (data?: Record<string, string>) => boolean = () => true) =>
      () =>
        events.some((event) => event.verb === verb && event.name === name && check(event.data));

    it("reports the existing objects as adds from its initial list", async () => {
      assert.ok(seen(k8s.ADD, "pre-existing")());
      assert.equal(informer.get("pre-existing", namespace)?.metadata?.name, "pre-existing");
    });

    it("sees an add, an update and a delete", async () => {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "watched" }, data: { v: "1" } } });
      await waitFor(seen(k8s.ADD, "watched"), { what: "the informer's add event" });
      await core.patchNamespacedConfigMap(
        { namespace, name: "watched", body: { data: { v: "2" } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      );
      await waitFor(
        seen(k8s.UPDATE, "watched", (data) => data?.["v"] === "2"),
        { what: "the informer's update event" },
      );
      assert.equal(informer.get("watched", namespace)?.data?.["v"], "2");
      await core.deleteNamespacedConfigMap({ namespace, name: "watched" });
      await waitFor(seen(k8s.DELETE, "watched"), { what: "the informer's delete event" });
      assert.equal(informer.get("watched", namespace), undefined);
      assert.deepEqual(errors, []);
      assert.deepEqual(
        events.filter((event) => event.name === "watched").map((event) => event.verb),
        [k8s.ADD, k8s.UPDATE, k8s.DELETE],
      );
    });
  });
});
