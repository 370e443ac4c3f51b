import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SchemaMarkers } from "../crd/json-schema.js";
import { schemaTreeOf } from "../crd/schema-tree.js";
import { type TypeCheckResult, PolicyTypeChecker } from "./typed-policy.js";

/** A custom resource's schema (JSONSchemaProps as a CRD stores it) exercising kube's CEL type mapping. */
const WIDGET = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        count: { type: "integer" },
        ratio: { type: "number" },
        enabled: { type: "boolean" },
        port: { "x-kubernetes-int-or-string": true },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        labels: { type: "object", additionalProperties: { type: "string" } },
        items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        since: { type: "string", format: "date-time" },
        timeout: { type: "string", format: "duration" },
        blob: { type: "string", format: "byte" },
        template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object", properties: { a: { type: "string" } } } } },
      },
    },
  },
};

const checker = new PolicyTypeChecker({
  object: { tree: schemaTreeOf(WIDGET, new SchemaMarkers(["x-kubernetes-"])), name: "example.v1.Widget" },
  hasParams: false,
});

function typeOf(expression: string): string {
  const result: TypeCheckResult = checker.check(expression);
  return result.kind === "ok" ? result.type : `error: ${result.message}`;
}

describe("typed policy checker: kube's CEL types of a schema", () => {
  it("maps integer, number, boolean, string formats, maps and lists as kube does", () => {
    assert.equal(typeOf("object.spec.count"), "int");
    assert.equal(typeOf("object.spec.ratio"), "double");
    assert.equal(typeOf("object.spec.enabled"), "bool");
    assert.equal(typeOf("object.spec.since"), "google.protobuf.Timestamp");
    assert.equal(typeOf("object.spec.timeout"), "google.protobuf.Duration");
    assert.equal(typeOf("object.spec.blob"), "bytes");
    assert.equal(typeOf("object.spec.labels"), "map<string, string>");
    assert.equal(typeOf("object.spec.items[0].name"), "string");
  });

  it("int-or-string and preserve-unknown-fields are dyn; the root's metadata is ObjectMeta; an embedded resource has apiVersion, kind and metadata name/generateName", () => {
    assert.equal(typeOf("object.spec.port"), "dyn");
    assert.equal(typeOf("object.spec.extra.anything.below"), "dyn");
    assert.equal(typeOf("object.metadata.generateName + object.apiVersion + object.kind"), "string");
    assert.equal(typeOf("object.spec.template.metadata.name + object.spec.template.spec.a"), "string");
    assert.equal(typeOf("object.metadata.labels"), "map<string, string>");
    assert.equal(typeOf("object.metadata.creationTimestamp"), "google.protobuf.Timestamp");
    assert.equal(typeOf("object.metadata.uidd"), "error: undefined field 'uidd'");
    assert.equal(typeOf("object.spec.template.metadata.uid"), "error: undefined field 'uid'");
  });

  it("type errors in cel-go's words at cel-go's positions; parse errors are left to the untyped compile", () => {
    assert.deepEqual(checker.check("object.spec.count == 'a'"), {
      kind: "error",
      undefinedField: false,
      offset: 18,
      message: "found no matching overload for '_==_' applied to '(int, string)'",
    });
    assert.deepEqual(checker.check("-object.spec.labels"), {
      kind: "error",
      undefinedField: false,
      offset: 0,
      message: "found no matching overload for '-_' applied to '(map<string, string>)'",
    });
    assert.deepEqual(checker.check("(object.spec.count > 1 ? object.spec : object.spec).cont"), {
      kind: "error",
      undefinedField: true,
      offset: 51,
      message: "undefined field 'cont'",
    });
    // `params` is not declared without a paramKind.
    assert.equal(typeOf("params.x"), "error: undeclared reference to 'params' (in container '')");
  });

  it("variables take the checked type of their expression, in order", () => {
    const withVariables = new PolicyTypeChecker({
      object: { tree: schemaTreeOf(WIDGET, new SchemaMarkers(["x-kubernetes-"])), name: "example.v1.Widget" },
      hasParams: true,
    });
    withVariables.addVariable("names", "list<string>");
    assert.deepEqual(withVariables.check("variables.names.all(n, n.size() > 0) && params.anything"), { kind: "ok", type: "bool" });
    assert.equal(withVariables.check("variables.count").kind, "error");
  });
});
