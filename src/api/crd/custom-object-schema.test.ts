import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../profile.js";
import { customObjectSchema } from "./custom-object-schema.js";

const options = { extensionPrefixes: KUBERNETES_PROFILE.openApiExtensionPrefixes };
const spec = (extra: Record<string, unknown>): Record<string, unknown> => ({
  type: "object",
  properties: { spec: { type: "object", properties: { kind: { type: "string", enum: ["A"] }, ...extra } } },
});

describe("customObjectSchema(): CEL validation only where the schema declares rules", () => {
  it("has no rule pass for a schema without x-kubernetes-validations anywhere (kube makes no CEL validator, so never reports rules it did not check)", () => {
    assert.equal(customObjectSchema("t/v1/T", spec({}), options).validateRules, undefined);
  });

  it("has one for a rule at any depth (properties, items, additionalProperties)", () => {
    const rule = { "x-kubernetes-validations": [{ rule: "self.size() > 0" }] };
    for (const extra of [
      { name: { type: "string", ...rule } },
      { list: { type: "array", items: { type: "string", ...rule } } },
      { labels: { type: "object", additionalProperties: { type: "string", ...rule } } },
    ])
      assert.notEqual(customObjectSchema("t/v1/T", spec(extra), options).validateRules, undefined, JSON.stringify(extra));
  });
});

describe("customObjectSchema(): ratcheting finds map values under dotted keys", () => {
  it("keeps an unchanged invalid map value whose key holds dots (named by a dotted path) on update", () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { labels: { type: "object", additionalProperties: { type: "string", pattern: "^[a-z]+$" } }, size: { type: "integer" } },
        },
      },
    };
    const stage = customObjectSchema("t/v1/T", schema, options);
    const old = { apiVersion: "t/v1", kind: "T", metadata: { name: "a" }, spec: { labels: { "app.example.com/name": "X1" }, size: 1 } };
    assert.deepEqual(
      stage.validate(old, undefined).map((error) => error.field),
      ["spec.labels.app.example.com/name"],
    );
    assert.deepEqual(stage.validate({ ...old, spec: { ...old.spec, size: 2 } }, old), []);
    assert.equal(stage.validate({ ...old, spec: { ...old.spec, labels: { "app.example.com/name": "X2" } } }, old).length, 1);
  });
});
