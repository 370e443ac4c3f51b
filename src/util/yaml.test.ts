import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFirstDocument } from "./yaml.js";

describe("parseFirstDocument()", () => {
  it("reads the first document as kube's decoder does: a leading or trailing ---, later documents ignored", () => {
    assert.deepEqual(parseFirstDocument("---\nkind: Policy\n"), { kind: "Policy" });
    assert.deepEqual(parseFirstDocument("kind: Policy\n---\n"), { kind: "Policy" });
    assert.deepEqual(parseFirstDocument("kind: Policy\n---\nkind: Other\n"), { kind: "Policy" });
    assert.equal(parseFirstDocument(""), null);
  });

  it("throws for a malformed first document", () => {
    assert.throws(() => parseFirstDocument("kind: [Policy\n"));
  });
});
