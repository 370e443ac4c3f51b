import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseRuntimeConfig, RuntimeConfigError } from "./runtime-config.js";

describe("parseRuntimeConfig()", () => {
  it("reads group versions, api/all and the core version, with true as the default value", () => {
    const config = parseRuntimeConfig("batch/v1beta1=false,api/all=true,v1,authentication.orch.io/v1beta1");
    assert.deepEqual(
      [...config],
      [
        ["batch/v1beta1", false],
        ["api/all", true],
        ["api/v1", true],
        ["authentication.orch.io/v1beta1", true],
      ],
    );
  });
  for (const bad of ["batch", "batch/v1=maybe", "Batch/V1"]) {
    it(`rejects "${bad}"`, () => assert.throws(() => parseRuntimeConfig(bad), RuntimeConfigError));
  }
});
