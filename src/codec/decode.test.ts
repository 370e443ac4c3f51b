import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import { MAIN_THREAD_YAML_BOUND, MAX_BODY_DEPTH, MAX_YAML_BOUND, decodeBody, nestingDepth, yamlNestingBound } from "./decode.js";
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
    assert.equal(error.reason, "BadRequest");
    assert.equal(error.message, "error decoding request body: invalid character '{' exceeded max depth");
    const arrays = refused(() => decodeBody(Buffer.from(`{"a":${"[".repeat(MAX_BODY_DEPTH)}${"]".repeat(MAX_BODY_DEPTH)}}`), "json"));
    assert.equal(arrays.message, "error decoding request body: invalid character '[' exceeded max depth");
  });

  it("refuses deeply nested YAML before parsing it (block sequences, flow collections), without crashing", () => {
    for (const text of [
      `${"- ".repeat(MAX_YAML_BOUND)}x`,
      `${"[".repeat(50_000)}1${"]".repeat(50_000)}`,
      `${"{a: ".repeat(MAX_BODY_DEPTH + 1)}1${"}".repeat(MAX_BODY_DEPTH + 1)}`,
      `${"- ".repeat(MAX_BODY_DEPTH + 1)}x`,
    ]) {
      for (const format of ["yaml", "apply-patch"] as const) {
        const error = refused(() => decodeBody(Buffer.from(text), format));
        assert.equal(error.code, 400);
        assert.equal(error.message, `error decoding YAML: exceeded max depth of ${MAX_BODY_DEPTH}`);
      }
    }
    assert.deepEqual(decodeBody(Buffer.from("a:\n  b:\n    - c: [1, {d: 2}]\n"), "apply-patch"), { a: { b: [{ c: [1, { d: 2 }] }] } });
  });

  it("parses YAML nested past the main thread's stack on the YAML worker, up to kube's 10,000 levels (fuzz seed 208314 once aborted the server here)", () => {
    // 997 levels once reached the parser on the main thread, whose stack ran out near 785 levels:
    // a regular expression compiled with no stack left aborts the process. Such YAML now goes to
    // the worker, and every depth up to the limit decodes, on the plain and the strict-field paths.
    for (const depth of [997, MAX_BODY_DEPTH]) {
      const texts = [`${"- ".repeat(depth)}x`, `${"[".repeat(depth)}1${"]".repeat(depth)}`, `${"{a: ".repeat(depth)}1${"}".repeat(depth)}`];
      for (const text of texts) {
        assert.ok(yamlNestingBound(text) > MAIN_THREAD_YAML_BOUND);
        assert.equal(nestingDepth(parseYamlWithDuplicates(text).value, Number.POSITIVE_INFINITY), depth, text.slice(0, 20));
        assert.equal(nestingDepth(decodeBody(Buffer.from(text), "apply-patch"), Number.POSITIVE_INFINITY), depth, text.slice(0, 20));
      }
    }
    const duplicated = parseYamlWithDuplicates(`${"{a: ".repeat(2000)}{b: 1, b: 2}${"}".repeat(2000)}`);
    assert.deepEqual(duplicated.duplicates, [`${Array.from({ length: 2000 }, () => "a").join(".")}.b`]);
  });

  it("refuses YAML whose aliases nest the decoded value past the body limit", () => {
    // Two anchors, the second 5,001 levels inside the first: every line nests 5,001 deep, the value 10,002.
    const wrap = (inner: string): string => `${"[".repeat(5001)}${inner}${"]".repeat(5001)}`;
    const text = Array.from({ length: 2 }, (_, index) => `k${index}: &x${index} ${wrap(index === 0 ? "1" : `*x${index - 1}`)}`).join("\n");
    const error = refused(() => parseYamlWithDuplicates(text));
    assert.equal(error.code, 400);
    assert.match(error.message, /exceeded max depth of 10000/);
  });

  it("bounds YAML nesting from above", () => {
    for (const text of ["a: 1", "a:\n  b:\n    c: 1", "- - - x", "{a: [1, [2, {b: 3}]]}", "a:\n- b: [c]\n"]) {
      const actual = nestingDepth(decodeBody(Buffer.from(text), "yaml"), Number.POSITIVE_INFINITY);
      assert.ok(yamlNestingBound(text) >= actual, `${JSON.stringify(text)}: bound ${yamlNestingBound(text)} < depth ${actual}`);
    }
  });
});
