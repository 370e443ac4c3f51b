import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../api/errors.js";
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from "./json-patch.js";

function doc(): Record<string, unknown> {
  return { metadata: { name: "c1", labels: { a: "1" }, finalizers: ["x/1", "x/2"] }, data: { k: "v", n: null } };
}

function rejected(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.code === 422 &&
    error.reason === "Invalid" &&
    error.message === "the server rejected our request due to an error in our request"
  );
}

describe("applyJsonPatch(): what kube's JSON-patch library applies", () => {
  it("add, remove, replace, move, copy and test as RFC 6902 has them", () => {
    const result = applyJsonPatch(doc(), [
      { op: "add", path: "/metadata/labels/b", value: "2" },
      { op: "remove", path: "/metadata/labels/a" },
      { op: "replace", path: "/data/k", value: "w" },
      { op: "move", from: "/data/k", path: "/data/m" },
      { op: "copy", from: "/metadata/finalizers/0", path: "/metadata/finalizers/-" },
      { op: "test", path: "/data/m", value: "w" },
      { op: "add", path: "/metadata/finalizers/0", value: "x/0" },
    ]);
    assert.deepEqual(result, {
      metadata: { name: "c1", labels: { b: "2" }, finalizers: ["x/0", "x/1", "x/2", "x/1"] },
      data: { n: null, m: "w" },
    });
  });

  it("replace of a missing object key adds it (the library's v4 leniency kube keeps)", () => {
    assert.deepEqual((applyJsonPatch(doc(), [{ op: "replace", path: "/metadata/labels/new", value: "y" }]) as { metadata: unknown }).metadata, {
      name: "c1",
      labels: { a: "1", new: "y" },
      finalizers: ["x/1", "x/2"],
    });
  });

  it("negative indices count from the end; a missing value is null; copy from a missing key copies null", () => {
    const result = applyJsonPatch(doc(), [
      { op: "remove", path: "/metadata/finalizers/-1" },
      { op: "add", path: "/data/empty" },
      { op: "copy", from: "/data/nope", path: "/data/copied" },
      { op: "test", path: "/data/nope", value: null },
    ]) as { metadata: { finalizers: unknown }; data: unknown };
    assert.deepEqual(result.metadata.finalizers, ["x/1"]);
    assert.deepEqual(result.data, { k: "v", n: null, empty: null, copied: null });
  });

  it("a `__proto__` key is an own key, as in the decoded body, never the object's prototype", () => {
    const result = applyJsonPatch(doc(), [{ op: "add", path: "/data/__proto__", value: { polluted: true } }]) as { data: Record<string, unknown> };
    assert.equal(JSON.stringify(result.data), '{"k":"v","n":null,"__proto__":{"polluted":true}}');
    assert.equal((result.data as { polluted?: unknown }).polluted, undefined);
  });

  it("a null patch changes nothing", () => {
    assert.deepEqual(applyJsonPatch(doc(), null), doc());
  });

  const failures: { name: string; patch: unknown[] }[] = [
    { name: "add under a missing parent", patch: [{ op: "add", path: "/metadata/annotations/x", value: "y" }] },
    { name: "add through a scalar", patch: [{ op: "add", path: "/data/k/x", value: "y" }] },
    { name: "add past the end of a list", patch: [{ op: "add", path: "/metadata/finalizers/3", value: "y" }] },
    { name: "add at a non-numeric list index", patch: [{ op: "add", path: "/metadata/finalizers/x", value: "y" }] },
    { name: "remove of a missing key", patch: [{ op: "remove", path: "/data/zz" }] },
    { name: "remove past the end of a list", patch: [{ op: "remove", path: "/metadata/finalizers/2" }] },
    { name: "replace past the end of a list", patch: [{ op: "replace", path: "/metadata/finalizers/5", value: "y" }] },
    { name: "move from a missing key", patch: [{ op: "move", from: "/data/zz", path: "/data/k2" }] },
    { name: "a failing test", patch: [{ op: "test", path: "/data/k", value: "q" }] },
    { name: "a test of a missing key against a value", patch: [{ op: "test", path: "/data/zz", value: "q" }] },
    { name: "an unknown op", patch: [{ op: "frob", path: "/data/k", value: "q" }] },
    { name: "an operation without op", patch: [{ path: "/data/k", value: "q" }] },
    { name: "an operation without path", patch: [{ op: "add", value: "q" }] },
    { name: "a null operation", patch: [null] },
    { name: "an empty path", patch: [{ op: "add", path: "", value: "q" }] },
  ];
  for (const failure of failures) {
    it(`${failure.name}: kube's bare 422`, () => {
      assert.throws(() => applyJsonPatch(doc(), failure.patch), rejected);
    });
  }

  it("a failed operation leaves no partial effect visible: the whole patch fails", () => {
    assert.throws(
      () =>
        applyJsonPatch(doc(), [
          { op: "add", path: "/metadata/labels/b", value: "2" },
          { op: "test", path: "/data/k", value: "nope" },
        ]),
      rejected,
    );
  });

  it("a body that is not a list of operation objects is kube's 400 with Go's decoding text", () => {
    const cases: [unknown, string][] = [
      [{ op: "add" }, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"],
      ["x", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"],
      [1, "json: cannot unmarshal number into Go value of type jsonpatch.Patch"],
      [true, "json: cannot unmarshal bool into Go value of type jsonpatch.Patch"],
      [["add"], "json: cannot unmarshal string into Go value of type jsonpatch.Operation"],
      [[[]], "json: cannot unmarshal array into Go value of type jsonpatch.Operation"],
    ];
    for (const [patch, message] of cases) {
      assert.throws(
        () => applyJsonPatch(doc(), patch),
        (error: unknown) => error instanceof ApiError && error.code === 400 && error.reason === "BadRequest" && error.message === message,
        JSON.stringify(patch),
      );
    }
  });

  it(`more than ${MAX_JSON_PATCH_OPERATIONS} operations is kube's 413`, () => {
    const patch = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: "test", path: "/data/k", value: "v" }));
    assert.throws(
      () => applyJsonPatch(doc(), patch),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 413 &&
        error.message === `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${MAX_JSON_PATCH_OPERATIONS + 1}`,
    );
    assert.deepEqual(applyJsonPatch(doc(), patch.slice(1)), doc());
  });
});
