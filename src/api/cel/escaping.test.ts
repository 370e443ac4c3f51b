import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapePropertyName, propertyForCelName } from "./escaping.js";
import { checkSchemaRules } from "./rules-compile.js";
import { validateWithRules } from "./rules-evaluate.js";
import type { CelSchema } from "./schema.js";

describe("escapePropertyName()", () => {
  it("escapes as kube's table of escapes shows (kubernetes.io, CEL in Kubernetes: Escaping)", () => {
    assert.equal(escapePropertyName("namespace"), "__namespace__");
    assert.equal(escapePropertyName("x-prop"), "x__dash__prop");
    assert.equal(escapePropertyName("redact__d"), "redact__underscores__d");
    assert.equal(escapePropertyName("string"), "string");
    assert.equal(escapePropertyName("a.b/c"), "a__dot__b__slash__c");
    assert.equal(escapePropertyName("plain_name"), "plain_name");
  });

  it("leaves names CEL cannot name undefined", () => {
    assert.equal(escapePropertyName(""), undefined);
    assert.equal(escapePropertyName("0a"), undefined);
    assert.equal(escapePropertyName("a b"), undefined);
    assert.equal(escapePropertyName("a@b"), undefined);
  });

  it("finds the declared property of an escaped name", () => {
    const properties = { namespace: 1, "x-y": 2, plain: 3 };
    assert.equal(propertyForCelName(properties, "__namespace__"), 1);
    assert.equal(propertyForCelName(properties, "x__dash__y"), 2);
    assert.equal(propertyForCelName(properties, "plain"), 3);
    assert.equal(propertyForCelName(properties, "other"), undefined);
  });
});

// Gateway API's parentRefs rule (GRPCRoute/HTTPRoute, standard channel) reads `namespace` as kube requires.
const PARENT_REFS: CelSchema = {
  type: "object",
  properties: {
    parentRefs: {
      type: "array",
      maxItems: 32,
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", maxLength: 253 },
          namespace: { type: "string", maxLength: 63 },
          sectionName: { type: "string", maxLength: 253 },
          "x-tag": { type: "string", maxLength: 8 },
        },
      },
      "x-kubernetes-validations": [
        {
          message: "sectionName must be specified when parentRefs includes 2 or more references to the same parent",
          rule: "self.all(p1, self.all(p2, p1.name == p2.name && (((!has(p1.__namespace__) || p1.__namespace__ == '') && (!has(p2.__namespace__) || p2.__namespace__ == '')) || (has(p1.__namespace__) && has(p2.__namespace__) && p1.__namespace__ == p2.__namespace__ )) ? ((!has(p1.sectionName) || p1.sectionName == '') == (!has(p2.sectionName) || p2.sectionName == '')) : true))",
        },
        { message: "tags are short", rule: "self.all(p, !has(p.x__dash__tag) || p.x__dash__tag != 'bad')" },
        { message: "the plain keyword still reads the field", rule: "self.all(p, !has(p.namespace) || p.namespace != 'forbidden')" },
      ],
    },
  },
};

describe("escaped property names in CRD rules", () => {
  it("compile against the schema (kube declares `__namespace__`, `x__dash__tag`)", () => {
    assert.deepEqual(checkSchemaRules(PARENT_REFS, "spec.validation.openAPIV3Schema"), []);
  });

  it("read the values of the escaped properties", async () => {
    const valid = {
      parentRefs: [
        { name: "gw", namespace: "a" },
        { name: "gw", namespace: "b" },
      ],
    };
    assert.deepEqual(await validateWithRules(PARENT_REFS, valid, undefined), []);
    const clash = {
      parentRefs: [
        { name: "gw", namespace: "a", sectionName: "x" },
        { name: "gw", namespace: "a" },
        { name: "gw", "x-tag": "bad" },
      ],
    };
    const messages = (await validateWithRules(PARENT_REFS, clash, undefined)).map((error) => error.message);
    assert.deepEqual(messages, [
      'Invalid value: "array": sectionName must be specified when parentRefs includes 2 or more references to the same parent',
      'Invalid value: "array": tags are short',
    ]);
    const forbidden = { parentRefs: [{ name: "gw", namespace: "forbidden" }] };
    assert.deepEqual(
      (await validateWithRules(PARENT_REFS, forbidden, undefined)).map((error) => error.message),
      ['Invalid value: "array": the plain keyword still reads the field'],
    );
  });
});
