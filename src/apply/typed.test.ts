import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ORCH_PROFILE } from "../api/profile.js";
import { DEDUCED, type FieldType } from "../api/schema/field-type.js";
import { fieldTypeFromOpenApi } from "../api/schema/openapi.js";
import { pathString } from "./path.js";
import { compare } from "./typed.js";

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
