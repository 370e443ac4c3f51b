import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDuration } from "./duration.js";

describe("parseDuration()", () => {
  const cases: ReadonlyArray<readonly [string, number | undefined]> = [
    ["0", 0],
    ["500ms", 500],
    ["3s", 3000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["250us", 0.25],
    ["-2s", -2000],
    ["5", undefined],
    ["s", undefined],
    ["5 parsecs", undefined],
    ["", undefined],
    ["3d", undefined],
  ];
  for (const [text, want] of cases) {
    it(`reads "${text}" as ${String(want)}`, () => assert.equal(parseDuration(text), want));
  }
});
