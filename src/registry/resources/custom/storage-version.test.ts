import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ApiObject } from "../../../api/object.js";
import { ORCH_PROFILE } from "../../../api/profile.js";
import { decodeStored } from "../../stored-object.js";
import { customResourceDefinitions, namesOf } from "./custom-resources.js";

// Two served versions, `conversion: None`, stored as v1; v1beta1 declares a field v1 does not.
const CRD: ApiObject = {
  apiVersion: "apiextensions.orch.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com", uid: "u-1", generation: 1 },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", kind: "Widget" },
    conversion: { strategy: "None" },
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" }, old: { type: "string" } } } } },
        },
      },
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" }, nothing: { type: "string" } } } } },
        },
      },
    ],
  },
};

describe("customResourceDefinitions(): a version stored as another (conversion None)", () => {
  test("an object written at v1beta1 is stored as v1 without the fields v1's schema lacks, as kube's storage decoding prunes them", () => {
    const definitions = customResourceDefinitions(CRD, namesOf((CRD["spec"] as Record<string, unknown>)["names"]), {
      extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
    });
    const beta = definitions.find((definition) => definition.version === "v1beta1");
    assert.ok(beta?.storedAs !== undefined);
    const written: ApiObject = { apiVersion: "example.com/v1beta1", kind: "Widget", metadata: { name: "w" }, spec: { size: 2, old: "x", nothing: null } };
    const stored = beta.storedAs.toStorage(written);
    assert.deepEqual(stored, { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 2 } });
    assert.deepEqual(beta.storedAs.fromStorage(stored).apiVersion, "example.com/v1beta1");
  });
});

// Stored as v1; each version defaults `size` differently and only v1beta1 defaults `color`.
const DEFAULTS_CRD: ApiObject = {
  ...CRD,
  spec: {
    ...(CRD["spec"] as Record<string, unknown>),
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "integer", default: 2 }, color: { type: "string", default: "red" } } } },
          },
        },
      },
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { size: { type: "integer", default: 1 }, color: { type: "string" }, shape: { type: "string", default: "round" } },
              },
            },
          },
        },
      },
    ],
  },
};

describe("customResourceDefinitions(): reading an object stored at another version", () => {
  test("it is defaulted with the stored version's schema, then pruned by the served one's, and gets none of the served version's defaults (kube decodes before it converts)", () => {
    const definitions = customResourceDefinitions(DEFAULTS_CRD, namesOf((DEFAULTS_CRD["spec"] as Record<string, unknown>)["names"]), {
      extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
    });
    const stored = JSON.stringify({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: {} });
    const beta = definitions.find((definition) => definition.version === "v1beta1");
    const v1 = definitions.find((definition) => definition.version === "v1");
    assert.ok(beta !== undefined && v1 !== undefined);
    // v1's defaults (size 1, shape round), then v1beta1's pruning (no shape); not v1beta1's size 2 or color red.
    assert.deepEqual(decodeStored(stored, 7, beta), {
      apiVersion: "example.com/v1beta1",
      kind: "Widget",
      metadata: { name: "w", resourceVersion: "7" },
      spec: { size: 1 },
    });
    assert.deepEqual(decodeStored(stored, 7, v1), {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", resourceVersion: "7" },
      spec: { size: 1, shape: "round" },
    });
    // Stored at a version the definition no longer declares: no defaults, only the served version's pruning.
    const gone = JSON.stringify({ apiVersion: "example.com/v0", kind: "Widget", metadata: { name: "w" }, spec: { extra: 1 } });
    assert.deepEqual(decodeStored(gone, 7, beta).spec, {});
  });
});
