import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEPTH_BUDGET, isExactJson } from "./deep-json.js";

describe("isExactJson: the value JSON gives back, key for key", () => {
  it("holds for plain JSON values, and they do come back equal", () => {
    const values: unknown[] = [null, true, 0, -1.5, "", "text", [], {}, [1, "a", null, { b: [false] }], { a: { b: { c: [1, 2, { d: "e" }] } }, "1": 2 }];
    for (const value of values) {
      assert.equal(isExactJson(value), true, JSON.stringify(value));
      assert.deepEqual(JSON.parse(JSON.stringify(value)), value);
    }
    assert.equal(isExactJson(Object.assign(Object.create(null) as object, { a: 1 })), true);
  });

  it("fails for what JSON drops or changes", () => {
    const cases: [string, unknown][] = [
      ["an undefined member", { a: 1, b: undefined }],
      ["an undefined item", [1, undefined]],
      // biome-ignore lint/suspicious/noSparseArray: the hole is the case
      ["a hole", [1, , 3]],
      ["NaN", { a: Number.NaN }],
      ["Infinity", [Number.POSITIVE_INFINITY]],
      ["a Date", { when: new Date(0) }],
      ["a class instance", { value: new Map() }],
      ["a function", { run: () => 1 }],
      ["a bigint", { n: 1n }],
      ["a __proto__ key", JSON.parse('{"__proto__":{"a":1}}')],
      ["undefined itself", undefined],
    ];
    for (const [what, value] of cases) assert.equal(isExactJson(value), false, what);
  });

  it("fails past the depth budget rather than walking on", () => {
    let deep: unknown = "leaf";
    for (let level = 0; level < DEPTH_BUDGET + 5; level++) deep = { next: deep };
    assert.equal(isExactJson(deep), false);
    let shallow: unknown = "leaf";
    for (let level = 0; level < DEPTH_BUDGET - 5; level++) shallow = [shallow];
    assert.equal(isExactJson(shallow), true);
  });
});
