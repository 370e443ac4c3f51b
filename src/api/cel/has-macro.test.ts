import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "./environment.js";
import { checkSchemaRules } from "./rules-compile.js";
import { validateWithRules } from "./rules-evaluate.js";
import { RULE_VARIABLES } from "./rules-shared.js";
import type { CelSchema } from "./schema.js";

async function run(expression: string, self: unknown): Promise<unknown> {
  const compiled = compile(expression, RULE_VARIABLES);
  assert.equal(compiled.kind, "ok", compiled.kind === "error" ? compiled.message : "");
  if (compiled.kind !== "ok") return undefined;
  const result = await compiled.program.evaluate({ self });
  return result.kind === "value" ? result.value : `error: ${result.message}`;
}

describe("has() over any selection (cel-go's macro)", () => {
  it("tests a field of an indexed element and of a call's result", async () => {
    assert.equal(await run("has(self[0].matches)", [{ matches: [] }]), true);
    assert.equal(await run("has(self[0].matches)", [{}]), false);
    assert.equal(await run("has(self.items[1].a.b)", { items: [{}, { a: { b: 1 } }] }), true);
    assert.equal(await run("has(self.items[1].a.b)", { items: [{}, { a: {} }] }), false);
    assert.equal(await run("has(self.items[1].a.b)", { items: [{}, {}] }), "error: no such key: a");
    assert.equal(await run("has(self.filter(x, x.on)[0].name)", [{ on: true, name: "n" }]), true);
  });

  it("leaves cel-js's own forms alone", async () => {
    assert.equal(await run("has(self.a)", { a: 1 }), true);
    assert.equal(await run("has(self.a.b)", { a: {} }), false);
    assert.equal(compile("has(self)", RULE_VARIABLES).kind, "error");
  });

  it("Gateway API's total-matches rule compiles, fits the cost budget and refuses 129 matches", async () => {
    const total = `${Array.from({ length: 16 }, (_, index) => `(self.size() > ${index} ? (has(self[${index}].matches) ? self[${index}].matches.size() : 0) : 0)`).join(" + ")} <= 128`;
    const schema: CelSchema = {
      type: "object",
      properties: {
        rules: {
          type: "array",
          maxItems: 16,
          items: {
            type: "object",
            properties: { matches: { type: "array", maxItems: 64, items: { type: "object", properties: { path: { type: "string", maxLength: 64 } } } } },
          },
          "x-kubernetes-validations": [{ rule: total, message: "the total number of matches across all rules in a route must be less than 128" }],
        },
      },
    };
    assert.deepEqual(checkSchemaRules(schema, "spec.validation.openAPIV3Schema"), []);
    const rules = (sizes: number[]): unknown => ({ rules: sizes.map((size) => ({ matches: Array.from({ length: size }, () => ({})) })) });
    assert.deepEqual(await validateWithRules(schema, rules([64, 64, 0]), undefined), []);
    const refused = await validateWithRules(schema, rules([64, 64, 1]), undefined);
    assert.deepEqual(
      refused.map((error) => `${error.field}: ${error.message}`),
      ['rules: Invalid value: "array": the total number of matches across all rules in a route must be less than 128'],
    );
  });
});
