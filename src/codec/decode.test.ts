import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import { MAX_BODY_DEPTH, decodeBody, nestingDepth, yamlNestingBound } from "./decode.js";

function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
}

function refused(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("decoded");
}

describe("decodeBody() nesting limit", () => {
  it("decodes JSON nested up to the limit and refuses one level more with 400", () => {
    assert.equal(nestingDepth(decodeBody(Buffer.from(nestedJson(MAX_BODY_DEPTH)), "json"), Number.POSITIVE_INFINITY), MAX_BODY_DEPTH);
    const error = refused(() => decodeBody(Buffer.from(nestedJson(MAX_BODY_DEPTH + 1)), "merge-patch"));
    assert.equal(error.code, 400);
    assert.match(error.message, /exceeded max depth of 1000/);
  });

  it("refuses deeply nested YAML before parsing it (block sequences, flow collections), without crashing", () => {
    for (const text of [
      `${"- ".repeat(100_000)}x`,
      `${"[".repeat(50_000)}1${"]".repeat(50_000)}`,
      `${"a:\n".repeat(1)}${Array.from({ length: 2000 }, (_, depth) => `${" ".repeat(depth + 1)}k:`).join("\n")} 1`,
    ]) {
      const error = refused(() => decodeBody(Buffer.from(text), "yaml"));
      assert.equal(error.code, 400);
    }
    assert.deepEqual(decodeBody(Buffer.from("a:\n  b:\n    - c: [1, {d: 2}]\n"), "apply-patch"), { a: { b: [{ c: [1, { d: 2 }] }] } });
  });

  it("bounds YAML nesting from above", () => {
    for (const text of ["a: 1", "a:\n  b:\n    c: 1", "- - - x", "{a: [1, [2, {b: 3}]]}", "a:\n- b: [c]\n"]) {
      const actual = nestingDepth(decodeBody(Buffer.from(text), "yaml"), Number.POSITIVE_INFINITY);
      assert.ok(yamlNestingBound(text) >= actual, `${JSON.stringify(text)}: bound ${yamlNestingBound(text)} < depth ${actual}`);
    }
  });
});
