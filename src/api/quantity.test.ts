import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalQuantityText, quantityValue } from "./quantity.js";

describe("quantityValue()", () => {
  const cases: readonly (readonly [unknown, number | undefined])[] = [
    ["1", 1],
    ["1000m", 1],
    ["0.5", 0.5],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["1024Mi", 2 ** 30],
    ["2k", 2000],
    ["2e3", 2000],
    ["100n", 1e-7],
    [3, 3],
    ["", undefined],
    ["1Gb", undefined],
    ["abc", undefined],
    [null, undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${String(expected)}`, () => {
      const value = quantityValue(input);
      if (expected === undefined) assert.equal(value, undefined);
      else assert.ok(value !== undefined && Math.abs(value - expected) < 1e-12 * Math.max(1, expected), `${String(value)}`);
    });
  }
});

describe("canonicalQuantityText() writes a numeric quantity as kube's canonical string", () => {
  const cases: readonly (readonly [number, string])[] = [
    [1, "1"],
    [0, "0"],
    [1.5, "1500m"],
    [0.1, "100m"],
    [0.3, "300m"],
    [2000, "2k"],
    [1e9, "1G"],
    [134217728, "134217728"],
    [0.0001, "100u"],
    [1.23456789, "1234567890n"],
    [1e-10, "1n"],
    [-2.5, "-2500m"],
    [1e21, "1000E"],
  ];
  for (const [value, text] of cases) {
    it(`${value} → ${text}`, () => {
      assert.equal(canonicalQuantityText(value), text);
    });
  }
});
