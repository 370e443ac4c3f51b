import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyStructuralDefaults, unknownCustomFields } from "./defaults-and-pruning.js";
import { SchemaMarkers } from "./json-schema.js";

const markers = new SchemaMarkers(["x-kubernetes-"]);

const SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        // A subtree without defaults next to ones with defaults deep in items and map values.
        plain: { type: "object", properties: { a: { type: "string" } } },
        ports: { type: "array", items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } } },
        byName: { type: "object", additionalProperties: { type: "object", properties: { weight: { type: "integer", default: 1 } } } },
        labels: { type: "object", additionalProperties: { type: "string" }, default: { managed: "true", nested: { list: [1, { b: 2 }] } } },
        odd: { type: "object", default: JSON.parse('{"__proto__": {"polluted": true}}') },
      },
    },
  },
};

describe("applyStructuralDefaults()", () => {
  test("fills defaults under items and additionalProperties and leaves subtrees without defaults as they are", () => {
    const object = { spec: { plain: { a: "x", extra: 1 }, ports: [{}, { protocol: "UDP" }], byName: { one: {}, two: { weight: 5 } } } };
    applyStructuralDefaults(markers, SCHEMA, object);
    assert.deepEqual(object.spec.plain, { a: "x", extra: 1 });
    assert.deepEqual(object.spec.ports, [{ protocol: "TCP" }, { protocol: "UDP" }]);
    assert.deepEqual(object.spec.byName, { one: { weight: 1 }, two: { weight: 5 } });
  });

  test("each object gets its own copy of an object default, equal to it", () => {
    const first: { spec: Record<string, unknown> } = { spec: {} };
    const second: { spec: Record<string, unknown> } = { spec: {} };
    applyStructuralDefaults(markers, SCHEMA, first);
    applyStructuralDefaults(markers, SCHEMA, second);
    assert.deepEqual(first.spec["labels"], { managed: "true", nested: { list: [1, { b: 2 }] } });
    (first.spec["labels"] as { nested: { list: unknown[] } }).nested.list.push(3);
    assert.deepEqual(second.spec["labels"], { managed: "true", nested: { list: [1, { b: 2 }] } });
    assert.deepEqual(SCHEMA.properties.spec.properties.labels.default, { managed: "true", nested: { list: [1, { b: 2 }] } });
  });

  test('a default with a "__proto__" key copies it as an own field, not as the prototype', () => {
    const object: { spec: Record<string, unknown> } = { spec: {} };
    applyStructuralDefaults(markers, SCHEMA, object);
    const odd = object.spec["odd"] as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(odd), Object.prototype);
    assert.deepEqual(Object.keys(odd), ["__proto__"]);
    assert.equal(JSON.stringify(odd), '{"__proto__":{"polluted":true}}');
  });
});

// Velero's Backup (velero.io_backups.yaml): `nullable: true` lists and selectors beside plain fields.
const BACKUP = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        includedNamespaces: { type: "array", nullable: true, items: { type: "string" } },
        ttl: { type: "string" },
        storageLocation: { type: "string", default: "default" },
        hooks: {
          type: "object",
          properties: {
            resources: {
              type: "array",
              items: { type: "object", properties: { name: { type: "string" }, pre: { type: "array", items: { type: "object" } } } },
            },
          },
        },
        orderedResources: { type: "object", additionalProperties: { type: "string" } },
      },
    },
  },
};

describe("unknownCustomFields() with prune: null values (kube's PruneNonNullableNullsWithoutDefaults)", () => {
  test("a null in a property that is neither nullable nor defaulted is dropped, unreported; nullable and defaulted ones stay for later stages", () => {
    const object = {
      spec: { includedNamespaces: null, ttl: null, storageLocation: null, hooks: { resources: [{ name: "h", pre: null }] }, orderedResources: { pods: null } },
    };
    assert.deepEqual(unknownCustomFields(markers, BACKUP, object, { prune: true }), []);
    assert.deepEqual(object.spec, { includedNamespaces: null, storageLocation: null, hooks: { resources: [{ name: "h" }] }, orderedResources: { pods: null } });
    applyStructuralDefaults(markers, BACKUP, object);
    assert.equal(object.spec.storageLocation, "default");
  });

  test("without prune (a field-validation report) nothing is removed", () => {
    const object = { spec: { ttl: null } };
    assert.deepEqual(unknownCustomFields(markers, BACKUP, object, { prune: false }), []);
    assert.deepEqual(object, { spec: { ttl: null } });
  });
});
