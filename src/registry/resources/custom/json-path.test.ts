import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonPathValues } from "./json-path.js";

const OBJECT = {
  metadata: { annotations: { "crossplane.io/usage-details": "production database", crossplane: { "io/usage-details": "wrong" } } },
  status: { conditions: [{ type: "Ready", status: "True" }] },
};

describe("jsonPathValues()", () => {
  it("keeps an escaped dot in a field name, as client-go's JSONPath does (Crossplane's DETAILS column)", () => {
    assert.deepEqual(jsonPathValues(OBJECT, ".metadata.annotations.crossplane\\.io/usage-details"), ["production database"]);
  });

  it("reads filters with either quote", () => {
    assert.deepEqual(jsonPathValues(OBJECT, ".status.conditions[?(@.type=='Ready')].status"), ["True"]);
    assert.deepEqual(jsonPathValues(OBJECT, '.status.conditions[?(@.type=="Ready")].status'), ["True"]);
  });
});
