import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateObjectMeta } from "../validation.js";
import { SchemaMarkers } from "./json-schema.js";
import { validateValue } from "./validate-value.js";

const markers = new SchemaMarkers(["x-kubernetes-"]);

function messages(schema: Record<string, unknown>, value: unknown): string[] {
  return validateValue(markers, schema, value, "spec").map((error) => `${error.field}: ${error.message}`);
}

describe("validateValue() words custom-resource errors as kube", () => {
  it("prints a list-map item's duplicate keys as Go's map[string]interface {} (keys sorted, defaults filled)", () => {
    const schema = {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "name"],
      items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer", default: 80 } } },
    };
    assert.deepEqual(messages(schema, [{ name: "a" }, { name: "a", port: 80 }]), ['spec[1]: Duplicate value: map[string]interface {}{"name":"a", "port":80}']);
  });

  it("matches patterns with RE2, as kube's Go regexp: (?i) flags work, the pattern is searched for", () => {
    assert.deepEqual(messages({ type: "string", pattern: "(?i)^(http|https)$" }, "HTTPS"), []);
    assert.deepEqual(messages({ type: "string", pattern: "[[:digit:]]" }, "v1"), []);
    assert.deepEqual(messages({ type: "string", pattern: "(?i)^http$" }, "ftp"), ["spec: Invalid value: \"ftp\": spec in body should match '(?i)^http$'"]);
  });

  it("words too few items and properties with the size as the value, as kube-openapi's MinItems and MinProperties carry it", () => {
    assert.deepEqual(messages({ type: "array", minItems: 1, items: { type: "string" } }, []), [
      "spec: Invalid value: 0: spec in body should have at least 1 items",
    ]);
    assert.deepEqual(messages({ type: "array", minItems: 3, items: { type: "string" } }, ["a", "b"]), [
      "spec: Invalid value: 2: spec in body should have at least 3 items",
    ]);
    assert.deepEqual(messages({ type: "object", minProperties: 1, properties: { a: { type: "string" } } }, {}), [
      "spec: Invalid value: 0: spec in body should have at least 1 properties",
    ]);
    assert.deepEqual(messages({ type: "object", maxProperties: 1, properties: { a: { type: "string" }, b: { type: "string" } } }, { a: "x", b: "y" }), [
      "spec: Too many: 2: must have at most 1 items",
    ]);
  });

  it('names a map value by kube-openapi\'s dotted path (path + "." + key), in the field and the message', () => {
    const schema = { type: "object", additionalProperties: { type: "string", pattern: "^[a-z]+$" } };
    assert.deepEqual(messages(schema, { good: "ok", "app.example/bad": "X1", num: 1 }), [
      "spec.app.example/bad: Invalid value: \"X1\": spec.app.example/bad in body should match '^[a-z]+$'",
      'spec.num: Invalid value: "integer": spec.num in body must be of type string: "integer"',
    ]);
  });

  it("does not range-check integer formats, as kube strips numeric formats from custom-resource schemas", () => {
    assert.deepEqual(messages({ type: "integer", format: "int32" }, 3000000000), []);
  });

  it("checks an embedded resource's apiVersion, kind and metadata as kube's objectmeta validation", () => {
    const schema = { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true };
    assert.deepEqual(messages(schema, { foo: 1 }), ["spec.apiVersion: Required value", "spec.kind: Required value"]);
    const DNS1035 =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    assert.deepEqual(messages(schema, { apiVersion: "a/b/c", kind: "Config Map", metadata: { name: "Any_Name" } }), [
      'spec.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `spec.kind: Invalid value: "Config Map": may have mixed case, but should otherwise match: ${DNS1035}`,
    ]);
    assert.equal(messages(schema, { apiVersion: "v1", kind: "ConfigMap", metadata: { labels: { "a b": "c" } } })[0]?.split(":")[0], "spec.metadata.labels");
  });
});

describe("validateObjectMeta() checks generateName as kube's name functions with prefix=true", () => {
  const meta = (metadata: Record<string, unknown>) =>
    validateObjectMeta({ apiVersion: "v1", kind: "X", metadata }, { nameRule: "dns1123-subdomain", namespaced: false });
  it("masks a trailing dash and refuses an invalid prefix", () => {
    assert.deepEqual(meta({ generateName: "good-", name: "good-x1234" }), []);
    assert.deepEqual(
      meta({ generateName: "Bad-", name: "bad-x1234" }).map((error) => error.field),
      ["metadata.generateName"],
    );
  });

  it("masks as kube's maskTrailingDash does: the last two characters become one 'a', a lone '-' is not masked", () => {
    assert.deepEqual(
      meta({ generateName: "a-.-", name: "a-.-x1234" }).map((error) => error.field),
      ["metadata.name"],
    );
    assert.deepEqual(
      meta({ generateName: "-", name: "-x1234" }).map((error) => error.field),
      ["metadata.generateName", "metadata.name"],
    );
  });
});

describe("validateObjectMeta() checks finalizers as apimachinery's ValidateFinalizers", () => {
  it("reports each IsQualifiedName message at metadata.finalizers, without the index", () => {
    const errors = validateObjectMeta(
      { apiVersion: "v1", kind: "X", metadata: { name: "x", finalizers: ["example.com/ok", "bad finalizer"] } },
      { nameRule: "dns1123-subdomain", namespaced: false },
    );
    assert.deepEqual(
      errors.map((error) => error.field),
      ["metadata.finalizers"],
    );
    assert.match(errors[0]?.message ?? "", /^Invalid value: "bad finalizer": name part must consist of/);
  });
});
