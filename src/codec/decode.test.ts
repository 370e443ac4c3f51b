import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import { MAX_BODY_DEPTH, MAX_YAML_NESTING, decodeBody, nestingDepth, yamlNestingBound } from "./decode.js";
import { parseYamlWithDuplicates } from "./duplicate-fields.js";

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

  it("refuses YAML the parser cannot safely nest into on the strict-field path too (fuzz seed 208314 aborted the server)", () => {
    // 997 levels passed the old bound of 1,000 and reached the parser, whose stack ran out near
    // 785 levels: a regular expression compiled with no stack left aborts the process.
    for (const text of [`${"- ".repeat(997)}x`, `${"[".repeat(997)}1${"]".repeat(997)}`, `${"[".repeat(MAX_YAML_NESTING)}1${"]".repeat(MAX_YAML_NESTING)}`]) {
      for (const decode of [() => parseYamlWithDuplicates(text), () => decodeBody(Buffer.from(text), "apply-patch")]) {
        const error = refused(decode);
        assert.equal(error.code, 400);
        assert.match(error.message, /exceeded max depth of 500/);
      }
    }
    const inside = MAX_YAML_NESTING - 1;
    assert.equal(nestingDepth(parseYamlWithDuplicates(`${"[".repeat(inside)}1${"]".repeat(inside)}`).value, Number.POSITIVE_INFINITY), inside);
  });

  it("refuses YAML whose aliases nest the decoded value past the body limit", () => {
    // Six anchors, each 200 levels inside the one before: every line nests 200 deep, the value 1,200.
    const wrap = (inner: string): string => `${"[".repeat(200)}${inner}${"]".repeat(200)}`;
    const text = Array.from({ length: 6 }, (_, index) => `k${index}: &x${index} ${wrap(index === 0 ? "1" : `*x${index - 1}`)}`).join("\n");
    const error = refused(() => parseYamlWithDuplicates(text));
    assert.equal(error.code, 400);
    assert.match(error.message, /exceeded max depth of 1000/);
  });

  it("bounds YAML nesting from above", () => {
    for (const text of ["a: 1", "a:\n  b:\n    c: 1", "- - - x", "{a: [1, [2, {b: 3}]]}", "a:\n- b: [c]\n"]) {
      const actual = nestingDepth(decodeBody(Buffer.from(text), "yaml"), Number.POSITIVE_INFINITY);
      assert.ok(yamlNestingBound(text) >= actual, `${JSON.stringify(text)}: bound ${yamlNestingBound(text)} < depth ${actual}`);
    }
  });
});
