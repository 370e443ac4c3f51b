import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { humanDuration } from "./human-duration.js";

describe("humanDuration()", () => {
  const S = 1000;
  const cases: ReadonlyArray<readonly [number, string]> = [
    [0, "0s"],
    [45 * S, "45s"],
    [119 * S, "119s"],
    [330 * S, "5m30s"],
    [300 * S, "5m"],
    [45 * 60 * S, "45m"],
    [200 * 60 * S, "3h20m"],
    [30 * 3600 * S, "30h"],
    [77 * 3600 * S, "3d5h"],
    [40 * 86400 * S, "40d"],
    [740 * 86400 * S, "2y10d"],
  ];
  for (const [ms, want] of cases) it(`shows ${ms} ms as ${want}`, () => assert.equal(humanDuration(ms), want));
});
