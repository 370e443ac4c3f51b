import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { estimateCost, MAX_REQUEST_SIZE_BYTES, maxSize, schemaOf } from "./cost.js";
import { compile } from "./environment.js";
import type { CelSchema } from "./schema.js";

function cost(expression: string, self: CelSchema | undefined): number {
  const compiled = compile(expression, { name: "cost-test", variables: ["self"] });
  assert.equal(compiled.kind, "ok");
  return compiled.kind === "ok" ? estimateCost(compiled.program.ast, { self }) : Number.NaN;
}

const LIST_10: CelSchema = { type: "array", maxItems: 10, items: { type: "string", maxLength: 100 } };
const LIST_UNBOUNDED: CelSchema = { type: "array", items: { type: "string" } };
const MAP_UNBOUNDED: CelSchema = { type: "object", additionalProperties: { type: "string" } };

describe("cost estimates", () => {
  const table: readonly (readonly [string, CelSchema | undefined, number])[] = [
    ["true", undefined, 0],
    ["self.a", { type: "object", properties: { a: { type: "integer" } } }, 2],
    // cel-go's model: identifiers and selects 1, equality a traversal of the smaller side (1 for scalars)
    ["self.a == 1", { type: "object", properties: { a: { type: "integer" } } }, 3],
    // range 1 + result 1 + per element: loop condition 2, `__result__ &&` 1, the body
    ["self.all(x, x == 'a')", LIST_10, 1 + 1 + 10 * (3 + 1 + 1)],
    // startsWith reads the prefix only, not the 100-character receiver
    ["self.all(x, x.startsWith('a'))", LIST_10, 1 + 1 + 10 * (3 + 1 + 1)],
    ["self.exists(x, x.contains('ab'))", LIST_10, 1 + 1 + 10 * (4 + 1 + 10 * 1)],
    ["self.all(x, x.matches('^[a-z]+$'))", LIST_10, 1 + 1 + 10 * (3 + 1 + 11 * 2)],
    ["matches(self, '^a')", { type: "string", maxLength: 99 }, 1 + 10 * 1],
    ["self.a > self.b && self.a < 5", { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } } }, 2 + 2 + 1 + 2 + 1],
    // a map's keys are sized 0 (kube's CRD estimator), its values by the request limit
    ["self.all(k, k.find('^([^/]+)').endsWith('io') && !self[k].startsWith('-'))", MAP_UNBOUNDED, 1 + 1 + 393215 * (3 + (1 + 2 + 1) + (1 + 1 + 1 + 1 + 1))],
    ["int(self[0]) >= 0", LIST_UNBOUNDED, 1 + 1 + 1 + 1],
    ["self.map(x, x).size() > 0", LIST_10, 1 + 1 + 10 * (1 + 1) + 1 + 1],
  ];
  for (const [expression, schema, expected] of table) {
    it(`${expression} costs ${expected}`, () => {
      assert.equal(cost(expression, schema), expected);
    });
  }

  it("bounds undeclared sizes by the 3 MiB request limit", () => {
    assert.equal(maxSize(LIST_UNBOUNDED), Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 3));
    assert.equal(maxSize({ type: "string" }), MAX_REQUEST_SIZE_BYTES - 2);
    assert.equal(maxSize(MAP_UNBOUNDED), 393215);
    assert.ok(cost("self.all(x, self.all(y, x != y))", LIST_UNBOUNDED) > 1e10);
  });

  it("derives the runtime bound from the actual sizes", () => {
    const actual = schemaOf(["ab", "abc"]);
    assert.deepEqual(actual, {
      type: "array",
      maxItems: 2,
      items: { type: "string", maxLength: 3, maxItems: 0, maxProperties: 0, items: undefined, properties: {} },
    });
    assert.equal(cost("self.all(x, x == 'a')", actual), 1 + 1 + 2 * (3 + 1 + 1));
  });
});
