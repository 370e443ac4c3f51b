import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../profile.js";
import { builtinSchemas } from "./builtin.js";
import { DEDUCED, OPEN, fieldTypeOf, resolveType, type FieldType, type MapType } from "./field-type.js";
import { fieldTypeFromOpenApi } from "./openapi.js";

const ORCH_OWN = ORCH_PROFILE.openApiExtensionPrefixes[ORCH_PROFILE.openApiExtensionPrefixes.length - 1] ?? "";
const read = (schema: unknown): FieldType => fieldTypeFromOpenApi(schema, { extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes });
const ext = (name: string, value: unknown, prefix = ORCH_OWN): Record<string, unknown> => ({ [`${prefix}${name}`]: value });

function describeType(type: FieldType): string {
  switch (type.kind) {
    case "scalar":
      return "scalar";
    case "untyped":
      return `untyped(${type.keys})`;
    case "list":
      return `list(${type.listType}${type.keys.length > 0 ? ` ${type.keys.join("+")}` : ""})`;
    case "map":
      return `map(${type.mapType}${type.elementsAreFields ? ", open" : ""})`;
  }
}

describe("fieldTypeFromOpenApi(): markers", () => {
  const cases: { name: string; schema: unknown; type: string }[] = [
    { name: "list-type atomic", schema: { type: "array", items: { type: "string" }, ...ext("list-type", "atomic") }, type: "list(atomic)" },
    { name: "list-type set", schema: { type: "array", items: { type: "string" }, ...ext("list-type", "set") }, type: "list(set)" },
    {
      name: "list-type map with keys",
      schema: { type: "array", items: { type: "object" }, ...ext("list-type", "map"), ...ext("list-map-keys", ["port", "protocol"]) },
      type: "list(map port+protocol)",
    },
    {
      name: "no list type: a merge patch strategy with a merge key is a map",
      schema: { type: "array", items: { type: "object" }, ...ext("patch-strategy", "merge"), ...ext("patch-merge-key", "name") },
      type: "list(map name)",
    },
    {
      name: "no list type: a merge patch strategy without a key is a set",
      schema: { type: "array", items: { type: "string" }, ...ext("patch-strategy", "merge") },
      type: "list(set)",
    },
    { name: "no markers: lists are atomic", schema: { type: "array", items: { type: "string" } }, type: "list(atomic)" },
    {
      name: "an explicit list type wins over the patch strategy",
      schema: { type: "array", items: { type: "object" }, ...ext("list-type", "atomic"), ...ext("patch-strategy", "merge"), ...ext("patch-merge-key", "name") },
      type: "list(atomic)",
    },
    { name: "map-type atomic", schema: { type: "object", ...ext("map-type", "atomic") }, type: "map(atomic)" },
    { name: "map-type granular", schema: { type: "object", additionalProperties: { type: "string" }, ...ext("map-type", "granular") }, type: "map(granular)" },
    {
      name: "properties only: a partial struct whose other keys are fields",
      schema: { type: "object", properties: { a: { type: "string" } } },
      type: "map(granular, open)",
    },
    {
      name: "the kube spelling is read in the orch profile too",
      schema: { type: "array", items: { type: "string" }, ...ext("list-type", "set", "x-kubernetes-") },
      type: "list(set)",
    },
    { name: "other vendors' spellings are ignored", schema: { type: "array", items: { type: "string" }, "x-other-list-type": "set" }, type: "list(atomic)" },
    { name: "int-or-string is a scalar", schema: ext("int-or-string", true), type: "scalar" },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => assert.equal(describeType(read(testCase.schema)), testCase.type));
  }

  it("reads the kubernetes profile's own spelling and not the orch one there", () => {
    const orchOnly = { type: "array", items: { type: "string" }, ...ext("list-type", "set") };
    const kube = fieldTypeFromOpenApi(orchOnly, { extensionPrefixes: KUBERNETES_PROFILE.openApiExtensionPrefixes });
    assert.equal(describeType(kube), ORCH_OWN === "x-kubernetes-" ? "list(set)" : "list(atomic)");
  });

  it("follows $ref and allOf[$ref] into components, keeps property defaults, and stops at recursion", () => {
    const type = fieldTypeFromOpenApi(
      { $ref: "#/components/schemas/Node" },
      {
        extensionPrefixes: ORCH_PROFILE.openApiExtensionPrefixes,
        components: {
          Node: { type: "object", properties: { protocol: { type: "string", default: "TCP" }, next: { allOf: [{ $ref: "#/components/schemas/Node" }] } } },
        },
      },
    ) as MapType;
    assert.equal(type.kind, "map");
    assert.equal(type.defaults.get("protocol"), "TCP");
    assert.equal(fieldTypeOf(type, "next"), OPEN);
  });
});

describe("builtinSchemas(): markers of the served kinds", () => {
  const schemas = builtinSchemas(ORCH_PROFILE);
  const at = (type: FieldType, ...path: string[]): FieldType => {
    let current = type;
    for (const name of path) {
      if (current.kind === "list") current = current.items;
      if (current.kind !== "map") throw new Error(`not a map at ${name}`);
      current = fieldTypeOf(current, name);
    }
    return current;
  };
  const pod = schemas.schemaFor("", "v1", "Pod");
  const deployment = schemas.schemaFor("apps", "v1", "Deployment");
  const cases: { name: string; type: FieldType; path: string[]; expected: string; value?: unknown }[] = [
    { name: "pod containers: map by name", type: pod, path: ["spec", "containers"], expected: "list(map name)" },
    {
      name: "container ports: map by containerPort and protocol",
      type: pod,
      path: ["spec", "containers", "ports"],
      expected: "list(map containerPort+protocol)",
    },
    { name: "container env: map by name", type: pod, path: ["spec", "initContainers", "env"], expected: "list(map name)" },
    { name: "volumes: map by name", type: pod, path: ["spec", "volumes"], expected: "list(map name)" },
    { name: "volumeMounts: map by mountPath", type: pod, path: ["spec", "containers", "volumeMounts"], expected: "list(map mountPath)" },
    { name: "metadata.finalizers: set", type: pod, path: ["metadata", "finalizers"], expected: "list(set)" },
    { name: "metadata.ownerReferences: map by uid", type: pod, path: ["metadata", "ownerReferences"], expected: "list(map uid)" },
    { name: "metadata.labels: granular map", type: pod, path: ["metadata", "labels"], expected: "map(granular)" },
    { name: "container args (undeclared): an atomic list", type: pod, path: ["spec", "containers", "args"], expected: "list(atomic)", value: ["sh"] },
    { name: "deployment selector: an atomic struct", type: deployment, path: ["spec", "selector"], expected: "map(atomic, open)" },
    { name: "deployment template containers: map by name", type: deployment, path: ["spec", "template", "spec", "containers"], expected: "list(map name)" },
    { name: "deployment template labels: granular", type: deployment, path: ["spec", "template", "metadata", "labels"], expected: "map(granular)" },
    {
      name: "service ports: map by port and protocol",
      type: schemas.schemaFor("", "v1", "Service"),
      path: ["spec", "ports"],
      expected: "list(map port+protocol)",
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => assert.equal(describeType(resolveType(at(testCase.type, ...testCase.path), testCase.value)), testCase.expected));
  }

  it("gives kinds without an entry the schema-less default under declared metadata", () => {
    const custom = schemas.schemaFor("example.com", "v1", "Widget");
    assert.equal(at(custom, "spec"), DEDUCED);
    assert.equal(describeType(at(custom, "metadata", "finalizers")), "list(set)");
  });
});
