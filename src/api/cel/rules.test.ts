import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSchemaRules } from "./rules-compile.js";
import { validateWithRules } from "./rules-evaluate.js";
import type { CelSchema } from "./schema.js";

const SPEC: CelSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.replicas <= self.maxReplicas", message: "replicas must not exceed maxReplicas", fieldPath: ".replicas" },
        { rule: "self.name == oldSelf.name", message: "name is immutable", reason: "FieldValueForbidden" },
        { rule: "!has(self.mode) || self.mode != 'off'", messageExpression: "'mode ' + self.mode + ' is not allowed'" },
      ],
      properties: {
        replicas: { type: "integer" },
        maxReplicas: { type: "integer" },
        name: { type: "string", maxLength: 20 },
        mode: { type: "string", maxLength: 10 },
        ratio: { type: "number", "x-kubernetes-validations": [{ rule: "self < 1.0" }] },
        tags: {
          type: "array",
          maxItems: 10,
          "x-kubernetes-list-type": "set",
          items: { type: "string", maxLength: 10, "x-kubernetes-validations": [{ rule: "self.startsWith('t')" }] },
        },
        grow: {
          type: "integer",
          "x-kubernetes-validations": [{ rule: "self >= oldSelf.orValue(1)", optionalOldSelf: true, message: "may only grow" }],
        },
      },
    },
  },
};

describe("validateWithRules()", () => {
  it("passes a valid object and reports each failed rule with kube's path, type and message", async () => {
    assert.deepEqual(await validateWithRules(SPEC, { spec: { replicas: 1, maxReplicas: 2, name: "a" } }, undefined), []);
    const errors = await validateWithRules(SPEC, { spec: { replicas: 3, maxReplicas: 2, name: "a", mode: "off", ratio: 1.5, tags: ["x"] } }, undefined);
    assert.deepEqual(errors, [
      { type: "FieldValueInvalid", field: "spec.replicas", message: 'Invalid value: "object": replicas must not exceed maxReplicas' },
      { type: "FieldValueInvalid", field: "spec", message: 'Invalid value: "object": mode off is not allowed' },
      { type: "FieldValueInvalid", field: "spec.ratio", message: 'Invalid value: "number": failed rule: self < 1.0' },
      { type: "FieldValueInvalid", field: "spec.tags[0]", message: "Invalid value: \"string\": failed rule: self.startsWith('t')" },
    ]);
  });

  it("runs transition rules only on update, with the reason's error type", async () => {
    const old = { spec: { replicas: 1, maxReplicas: 2, name: "a" } };
    assert.deepEqual(await validateWithRules(SPEC, { spec: { replicas: 1, maxReplicas: 2, name: "b" } }, old), [
      { type: "FieldValueForbidden", field: "spec", message: "Forbidden: name is immutable" },
    ]);
  });

  it("binds oldSelf as an optional with optionalOldSelf, also on create", async () => {
    const base = { replicas: 1, maxReplicas: 2, name: "a" };
    assert.deepEqual(
      (await validateWithRules(SPEC, { spec: { ...base, grow: 0 } }, undefined)).map((error) => error.field),
      ["spec.grow"],
    );
    assert.deepEqual(await validateWithRules(SPEC, { spec: { ...base, grow: 5 } }, { spec: { ...base, grow: 3 } }), []);
    const shrink = await validateWithRules(SPEC, { spec: { ...base, grow: 2 } }, { spec: { ...base, grow: 3 } });
    assert.deepEqual(shrink, [{ type: "FieldValueInvalid", field: "spec.grow", message: 'Invalid value: "integer": may only grow' }]);
  });

  it("runs kube's documented optionalOldSelf forms: !oldSelf.hasValue() || self >= oldSelf.value(), and == on a string", async () => {
    const schema: CelSchema = {
      type: "object",
      properties: {
        size: {
          type: "integer",
          "x-kubernetes-validations": [{ rule: "!oldSelf.hasValue() || self >= oldSelf.value()", optionalOldSelf: true, message: "may only grow" }],
        },
        id: {
          type: "string",
          "x-kubernetes-validations": [{ rule: "!oldSelf.hasValue() || self == oldSelf.value()", optionalOldSelf: true, message: "immutable" }],
        },
      },
    };
    assert.deepEqual(await validateWithRules(schema, { size: 2, id: "a" }, undefined), []);
    assert.deepEqual(await validateWithRules(schema, { size: 3, id: "a" }, { size: 2, id: "a" }), []);
    assert.deepEqual(
      (await validateWithRules(schema, { size: 1, id: "b" }, { size: 2, id: "a" })).map((error) => `${error.field}: ${error.message}`),
      ['size: Invalid value: "integer": may only grow', 'id: Invalid value: "string": immutable'],
    );
  });

  it("ratchets: an unchanged invalid subtree is not re-validated, a changed one is", async () => {
    const old = { spec: { replicas: 5, maxReplicas: 2, name: "a", tags: ["x"] } };
    assert.deepEqual(await validateWithRules(SPEC, { spec: { ...old.spec }, status: {} }, old), []);
    const changed = await validateWithRules(SPEC, { spec: { ...old.spec, tags: ["x", "y"] } }, old);
    assert.deepEqual(
      changed.map((error) => error.field),
      ["spec.replicas", "spec.tags[1]"],
    );
    assert.equal((await validateWithRules(SPEC, old, old, { ratcheting: false })).length, 2);
  });

  it("reports evaluation errors and stops when the runtime budget runs out", async () => {
    const schema: CelSchema = { type: "object", "x-kubernetes-validations": [{ rule: "self.a == 1" }] };
    assert.deepEqual(await validateWithRules(schema, { b: 1 }, undefined), [
      { type: "FieldValueInvalid", field: "", message: 'Invalid value: "object": no such key: a evaluating rule: self.a == 1' },
    ]);
    const costly: CelSchema = { type: "array", items: { type: "string" }, "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x != y || true))" }] };
    const big = Array.from({ length: 2000 }, (_, index) => `v${index}`);
    const errors = await validateWithRules(costly, big, undefined);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? "", /call cost exceeds limit for rule|running out of cost budget/);
    assert.deepEqual(await validateWithRules(costly, big.slice(0, 10), undefined), []);
  });
});

describe("checkSchemaRules()", () => {
  it("accepts well-formed rules", () => {
    assert.deepEqual(checkSchemaRules(SPEC, "spec.validation.openAPIV3Schema"), []);
  });

  it("reports compile errors, wrong result types, bad reasons, bad fieldPaths and optionalOldSelf misuse", () => {
    const schema: CelSchema = {
      type: "object",
      properties: { a: { type: "string" } },
      "x-kubernetes-validations": [
        { rule: "self.a +" },
        { rule: "self.a", reason: "Nope" },
        { rule: "self.a == 'x'", fieldPath: ".b", optionalOldSelf: true },
        { rule: "true", messageExpression: "1 +" },
      ],
    };
    const errors = checkSchemaRules(schema, "spec.validation.openAPIV3Schema");
    assert.deepEqual(
      errors.map((error) => [error.type, error.field]),
      [
        ["FieldValueInvalid", "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"],
        ["FieldValueNotSupported", "spec.validation.openAPIV3Schema.x-kubernetes-validations[1].reason"],
        // `self.a` is a string where the schema types it: not a bool.
        ["FieldValueInvalid", "spec.validation.openAPIV3Schema.x-kubernetes-validations[1].rule"],
        ["FieldValueInvalid", "spec.validation.openAPIV3Schema.x-kubernetes-validations[2].fieldPath"],
        ["FieldValueInvalid", "spec.validation.openAPIV3Schema.x-kubernetes-validations[2].optionalOldSelf"],
        ["FieldValueInvalid", "spec.validation.openAPIV3Schema.x-kubernetes-validations[3].messageExpression"],
      ],
    );
    assert.match(errors[0]?.message ?? "", /compilation failed: ERROR: <input>:1:\d+: /);
  });

  it("type-checks rules with self typed from the schema, in kube's words and positions", () => {
    const schema = (rule: string): CelSchema => ({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            n: { type: "integer" },
            s: { type: "string" },
            port: { type: "string", "x-kubernetes-int-or-string": true },
            free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      },
      "x-kubernetes-validations": [{ rule }],
    });
    const shown = (rule: string): string =>
      `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    const messages = (rule: string): string[] => checkSchemaRules(schema(rule), "spec.validation.openAPIV3Schema").map((error) => error.message);
    assert.deepEqual(messages("self.spec.nonExistingField > 0"), [
      `Invalid value: ${shown("self.spec.nonExistingField > 0")}: compilation failed: ERROR: <input>:1:10: undefined field 'nonExistingField'`,
    ]);
    assert.deepEqual(messages("self.spec.n == true"), [
      `Invalid value: ${shown("self.spec.n == true")}: compilation failed: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(int, bool)'`,
    ]);
    assert.deepEqual(messages("self.spec.s.foo == 1"), [
      `Invalid value: ${shown("self.spec.s.foo == 1")}: compilation failed: ERROR: <input>:1:12: type 'string' does not support field selection`,
    ]);
    // At the root only metadata.name and generateName are typed, as kube declares them.
    assert.deepEqual(messages("self.metadata.labels.size() < 3"), [
      `Invalid value: ${shown("self.metadata.labels.size() < 3")}: compilation failed: ERROR: <input>:1:14: undefined field 'labels'`,
    ]);
    for (const rule of [
      "self.metadata.name.size() < 10 && self.kind == 'W'",
      "self.spec.port == 1 || self.spec.port == 'a'",
      "self.spec.free.anything == 1",
      "self.spec.s == oldSelf.spec.s",
      "!has(self.spec.n) || self.spec.n >= 0",
    ])
      assert.deepEqual(messages(rule), [], rule);
  });

  it("accepts an optionalOldSelf transition rule on a typed field (cel-js's own checker failures are not findings)", () => {
    const schema: CelSchema = {
      type: "object",
      properties: {
        grow: { type: "integer", "x-kubernetes-validations": [{ rule: "!oldSelf.hasValue() || self >= oldSelf.value()", optionalOldSelf: true }] },
      },
    };
    assert.deepEqual(checkSchemaRules(schema, "spec.validation.openAPIV3Schema"), []);
  });

  it("accepts conversions of a date-time field cel-go declares (timestamp(timestamp), string(timestamp))", () => {
    const schema: CelSchema = {
      type: "object",
      properties: { when: { type: "string", format: "date-time" } },
      "x-kubernetes-validations": [
        { rule: "!has(self.when) || timestamp(self.when) > timestamp('2020-01-01T00:00:00Z')" },
        { rule: "!has(self.when) || string(self.when) != ''" },
      ],
    };
    assert.deepEqual(checkSchemaRules(schema, "spec.validation.openAPIV3Schema"), []);
  });

  it("rejects rules whose estimated cost exceeds kube's limits unless sizes are bounded", () => {
    const unbounded: CelSchema = { type: "array", items: { type: "string" }, "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x != y))" }] };
    const errors = checkSchemaRules(unbounded, "spec.validation.openAPIV3Schema");
    assert.equal(errors.length, 2);
    assert.match(errors[0]?.message ?? "", /^Forbidden: estimated rule cost exceeds budget by factor of [\d.]+x/);
    assert.match(errors[1]?.message ?? "", /estimated rule cost total for entire OpenAPIv3 schema exceeds budget/);
    const bounded: CelSchema = { ...unbounded, maxItems: 50, items: { type: "string", maxLength: 20 } };
    assert.deepEqual(checkSchemaRules(bounded, "spec.validation.openAPIV3Schema"), []);
  });
});
