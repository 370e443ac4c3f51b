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
