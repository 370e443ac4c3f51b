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

describe("cost estimates", () => {
  const table: readonly (readonly [string, CelSchema | undefined, number])[] = [
    ["true", undefined, 0],
    ["self.a", { type: "object", properties: { a: { type: "integer" } } }, 2],
    ["self.a == 1", { type: "object", properties: { a: { type: "integer" } } }, 4],
    ["self.all(x, x == 'a')", LIST_10, 1 + 1 + 10 * (1 + 2 + 1)],
    ["self.all(x, x.startsWith('a'))", LIST_10, 1 + 1 + 10 * (1 + 1 + 11 + 1)],
    ["self.map(x, x).size() > 0", LIST_10, 1 + 1 + 10 * (1 + 1) + 1 + 1],
  ];
  for (const [expression, schema, expected] of table) {
    it(`${expression} costs ${expected}`, () => {
      assert.equal(cost(expression, schema), expected);
    });
  }

  it("bounds undeclared sizes by the 3 MiB request limit", () => {
    assert.equal(maxSize(LIST_UNBOUNDED), Math.floor(MAX_REQUEST_SIZE_BYTES / 3));
    assert.equal(maxSize({ type: "string" }), MAX_REQUEST_SIZE_BYTES);
    assert.ok(cost("self.all(x, self.all(y, x != y))", LIST_UNBOUNDED) > 1e10);
  });

  it("derives the runtime bound from the actual sizes", () => {
    const actual = schemaOf(["ab", "abc"]);
    assert.deepEqual(actual, {
      type: "array",
      maxItems: 2,
      items: { type: "string", maxLength: 3, maxItems: 0, maxProperties: 0, items: undefined, properties: {} },
    });
    assert.equal(cost("self.all(x, x == 'a')", actual), 1 + 1 + 2 * (1 + 2 + 1));
  });
});
