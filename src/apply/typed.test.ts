import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../api/profile.js";
import { builtinSchemas } from "../api/schema/builtin.js";
import { DEDUCED, type FieldType } from "../api/schema/field-type.js";
import { fieldTypeFromOpenApi } from "../api/schema/openapi.js";
import { pathString } from "./path.js";
import { compare, withGoZeros } from "./typed.js";

const prefix = ORCH_PROFILE.openApiExtensionPrefixes[0] ?? "";
const ext = (name: string, value: unknown): Record<string, unknown> => ({ [`${prefix}${name}`]: value });

const TYPE: FieldType = fieldTypeFromOpenApi(
  {
    type: "object",
    properties: {
      replicas: { type: "integer" },
      args: { type: "array", items: { type: "string" } },
      finalizers: { type: "array", items: { type: "string" }, ...ext("list-type", "set") },
      labels: { type: "object", additionalProperties: { type: "string" } },
      selector: { type: "object", ...ext("map-type", "atomic") },
      containers: {
        type: "array",
        ...ext("list-type", "map"),
        ...ext("list-map-keys", ["name"]),
        items: {
          type: "object",
          properties: {
            image: { type: "string" },
            ports: {
              type: "array",
              ...ext("list-type", "map"),
              ...ext("list-map-keys", ["containerPort", "protocol"]),
              items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
            },
            tags: { type: "array", items: { type: "string" }, ...ext("list-type", "set") },
          },
        },
      },
    },
  },
  { extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes },
);

const VALUE = {
  replicas: 2,
  args: ["a", "b"],
  finalizers: ["x", "y"],
  labels: { app: "web" },
  selector: { matchLabels: { a: "b" } },
  empty: {},
  nothing: null,
  list: [],
  containers: [{ name: "c1", image: "i", ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }], tags: ["t"] }, { name: "c2" }],
};
const DUPLICATES = {
  finalizers: ["x", "x"],
  containers: [
    { name: "a", image: "1" },
    { name: "a", image: "2" },
  ],
};

const added = (lhs: unknown, rhs: unknown, type: FieldType): string[] => compare(lhs, rhs, type).added.paths().map(pathString);

describe("compare() against nothing (a create)", () => {
  it("reports every item and entry of the new value as added, as kube's comparison does", () => {
    assert.deepEqual(added(undefined, DUPLICATES, TYPE), [".containers", '.containers[name="a"]', ".finalizers", '.finalizers[="x"]']);
    assert.deepEqual(added({}, VALUE, DEDUCED), [
      ".args",
      ".containers",
      ".empty",
      ".finalizers",
      ".labels",
      ".labels.app",
      ".list",
      ".nothing",
      ".replicas",
      ".selector",
      ".selector.matchLabels",
      ".selector.matchLabels.a",
    ]);
    assert.deepEqual(added({}, [1], TYPE), []);
  });

  it("gives what the field-by-field walk gives for new subtrees (compared under an unrelated key)", () => {
    for (const [value, type] of [
      [VALUE, TYPE],
      [VALUE, DEDUCED],
      [DUPLICATES, TYPE],
    ] as const) {
      const walked = compare({ unrelated: 1 }, value, type);
      assert.deepEqual(walked.removed.paths().map(pathString), [".unrelated"]);
      const expected = walked.added.paths().map(pathString);
      assert.ok(expected.length > 3);
      assert.deepEqual(added(undefined, value, type), expected);
      assert.deepEqual(added({}, value, type), expected);
      const direct = compare(undefined, value, type);
      assert.ok(direct.modified.isEmpty() && direct.removed.isEmpty());
    }
  });
});

describe("withGoZeros(): values as kube's typed objects hold them", () => {
  const schemas = builtinSchemas(KUBERNETES_PROFILE);

  it("a Deployment's empty typed object: its non-pointer structs, null selector and containers, a template's null creationTimestamp", () => {
    const type = schemas.schemaFor("apps", "v1", "Deployment");
    assert.deepEqual(withGoZeros({}, type), {
      metadata: { creationTimestamp: null },
      spec: { selector: null, strategy: {}, template: { metadata: { creationTimestamp: null }, spec: { containers: null } } },
      status: {},
    });
  });

  it("fills below what is there (each container's resources), leaves pointer structs absent and never mutates its input", () => {
    const type = schemas.schemaFor("", "v1", "ReplicationController");
    const value = { spec: { replicas: 1 } };
    // A ReplicationController's template is a pointer: absent until set.
    assert.deepEqual(withGoZeros(value, type), { metadata: { creationTimestamp: null }, spec: { replicas: 1 }, status: {} });
    const withTemplate = { spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } } };
    assert.deepEqual(withGoZeros(withTemplate, type), {
      metadata: { creationTimestamp: null },
      spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: "c", image: "i", resources: {} }] } } },
      status: {},
    });
    assert.deepEqual(withTemplate, { spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } } });
  });

  it("custom resources have no Go zeros: a schema-less kind's value is returned as it is", () => {
    const value = { spec: { size: 1 } };
    assert.equal(withGoZeros(value, schemas.schemaFor("cache.example.com", "v1", "Memcached")), value);
  });
});
