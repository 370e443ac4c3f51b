// @kubernetes/client-node's CustomObjectsApi against custom resources of a generated CRD.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { apiGroup, ORCH_PROFILE } from "../src/api/profile.js";
import { crdFixture } from "../src/testing/crd-fixtures.js";
import { useTestServer } from "./helpers/server.js";

const GROUP = "apps.example.com";

describe("@kubernetes/client-node custom objects API", () => {
  const server = useTestServer({ storageBackend: "memory" });
  let custom: k8s.CustomObjectsApi;

  before(async () => {
    const config = new k8s.KubeConfig();
    config.loadFromString(server().server.kubeconfig);
    custom = config.makeApiClient(k8s.CustomObjectsApi);
    const apiextensions = apiGroup(ORCH_PROFILE, "apiextensions");
    await custom.createClusterCustomObject({
      group: apiextensions,
      version: "v1",
      plural: "customresourcedefinitions",
      body: crdFixture({ group: GROUP, plural: "services", kind: "Service", apiextensionsGroup: apiextensions }),
    });
    for (let attempt = 0; attempt < 250; attempt++) {
      const crd = (await custom.getClusterCustomObject({
        group: apiextensions,
        version: "v1",
        plural: "customresourcedefinitions",
        name: `services.${GROUP}`,
      })) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      if (crd.status?.conditions?.some((condition) => condition.type === "Established" && condition.status === "True")) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("the definition was not established");
  });

  it("creates, lists, patches and deletes custom objects (a kind named like a built-in, in its own group)", async () => {
    const created = (await custom.createNamespacedCustomObject({
      group: GROUP,
      version: "v1",
      namespace: "default",
      plural: "services",
      body: { apiVersion: `${GROUP}/v1`, kind: "Service", metadata: { name: "one" }, spec: { image: "nginx:1.25" } },
    })) as { spec: { replicas: number } };
    assert.equal(created.spec.replicas, 1);
    const listed = (await custom.listNamespacedCustomObject({ group: GROUP, version: "v1", namespace: "default", plural: "services" })) as { items: unknown[] };
    assert.equal(listed.items.length, 1);
    const patched = (await custom.patchNamespacedCustomObject(
      { group: GROUP, version: "v1", namespace: "default", plural: "services", name: "one", body: { spec: { replicas: 2 } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    )) as { spec: { replicas: number } };
    assert.equal(patched.spec.replicas, 2);
    await assert.rejects(
      custom.createNamespacedCustomObject({
        group: GROUP,
        version: "v1",
        namespace: "default",
        plural: "services",
        body: { apiVersion: `${GROUP}/v1`, kind: "Service", metadata: { name: "two" }, spec: { image: "nginx:1.25", mode: "Sometimes" } },
      }),
      (error: unknown) => error instanceof k8s.ApiException && error.code === 422,
    );
    await custom.deleteNamespacedCustomObject({ group: GROUP, version: "v1", namespace: "default", plural: "services", name: "one" });
    const after = (await custom.listNamespacedCustomObject({ group: GROUP, version: "v1", namespace: "default", plural: "services" })) as { items: unknown[] };
    assert.equal(after.items.length, 0);
  });
});
