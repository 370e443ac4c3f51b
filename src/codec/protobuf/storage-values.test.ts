import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { kubeStorageEncoding } from "./storage-values.js";

const encoding = kubeStorageEncoding(KUBERNETES_PROFILE);
const CONFIG_MAP = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", namespace: "default", uid: "u-1", creationTimestamp: "2024-01-01T00:00:00Z", labels: { b: "2", a: "1" } },
  data: { k: "v" },
};

function isEnvelope(bytes: Uint8Array): boolean {
  return Buffer.from(bytes).subarray(0, 4).toString("latin1") === "k8s\0";
}

describe("kubeStorageEncoding()", () => {
  test("stores a built-in kind in the protobuf envelope and reads the same object back", () => {
    const bytes = encoding.encode("/configmaps/default/c", JSON.stringify(CONFIG_MAP));
    assert.ok(isEnvelope(bytes));
    assert.deepEqual(JSON.parse(encoding.decode("/configmaps/default/c", bytes)), CONFIG_MAP);
  });

  test("is deterministic whatever the JSON key order (no-op updates compare bytes)", () => {
    const reordered = { data: CONFIG_MAP.data, kind: "ConfigMap", apiVersion: "v1", metadata: { ...CONFIG_MAP.metadata, labels: { a: "1", b: "2" } } };
    assert.deepEqual(encoding.encode("/configmaps/default/c", JSON.stringify(reordered)), encoding.encode("/configmaps/default/c", JSON.stringify(CONFIG_MAP)));
  });

  test("keeps JSON for custom resources, CRDs, values that are not objects with a message, and objects the message would cut", () => {
    const cases: [key: string, value: string][] = [
      ["/stable.example.com/crontabs/default/c", JSON.stringify({ apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "c" } })],
      [
        "/apiextensions.k8s.io/customresourcedefinitions/a.b.c",
        JSON.stringify({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "a.b.c" } }),
      ],
      ["/ranges/serviceips/10.0.0.1", JSON.stringify({ uid: "u", name: "default/web" })],
      ["/configmaps/default/plain", "not json"],
      ["/configmaps/default/extra", JSON.stringify({ ...CONFIG_MAP, notAField: true })],
      ["/configmaps/default/deep", JSON.stringify({ ...CONFIG_MAP, metadata: { ...CONFIG_MAP.metadata, extra: 1 } })],
    ];
    for (const [key, value] of cases) {
      const bytes = encoding.encode(key, value);
      assert.equal(Buffer.from(bytes).toString("utf8"), value, key);
      assert.equal(encoding.decode(key, bytes), value, key);
    }
  });

  test("spells the profile's groups: orch.io kinds under the orch profile", () => {
    const role = {
      apiVersion: "rbac.authorization.orch.io/v1",
      kind: "Role",
      metadata: { name: "r", namespace: "d" },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    };
    const bytes = kubeStorageEncoding(ORCH_PROFILE).encode("/roles/d/r", JSON.stringify(role));
    assert.ok(isEnvelope(bytes));
    assert.ok(Buffer.from(bytes).includes("rbac.authorization.orch.io/v1"));
    assert.deepEqual(JSON.parse(kubeStorageEncoding(ORCH_PROFILE).decode("/roles/d/r", bytes)), role);
  });

  test("refuses a corrupt envelope with the key in the message", () => {
    const bytes = Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x0a, 0x50])]);
    assert.throws(() => encoding.decode("/configmaps/default/bad", bytes), /stored value of \/configmaps\/default\/bad is not a readable protobuf object/);
  });
});
