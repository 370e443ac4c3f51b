import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalQuantity, canonicalQuantityText, quantityProblem, quantityValue } from "./quantity.js";

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

describe("canonicalQuantity() answers what kube's ParseQuantity and String answer for a client's text", () => {
  // Each expectation follows apimachinery's quantity.go (ParseQuantity, CanonicalizeBytes) as in kube 1.30.
  const cases: readonly (readonly [string, string | undefined, string])[] = [
    // Decimal values that are not cached come back with the largest suffix keeping the mantissa whole.
    ["0.5", "500m", "a fraction becomes milli"],
    ["0.1", "100m", "a fraction becomes milli"],
    ["1000", "1k", "a mantissa ending in 000 is not cached"],
    ["1000M", "1G", "trailing 000 moves to the next suffix"],
    ["1.0", "1", "a scale that is not a multiple of three is not cached"],
    ["1.5", "1500m", "1.5 is 1500m"],
    ["0.500", "500m", "a shifted mantissa with a leading zero is not cached"],
    ["0.1m", "100u", "scale -4 is rewritten at -6"],
    ["0m", "0", "zero is always 0"],
    ["00", "0", "all zeros"],
    ["-0", "0", "negative zero"],
    ["+0.5", "500m", "a leading + is dropped when the text is rewritten"],
    ["-0.5", "-500m", "negative fraction"],
    // Cached: kept exactly as written.
    ["500m", "500m", "canonical text is cached"],
    ["1", "1", "canonical text is cached"],
    ["01", "01", "leading zeros are stripped before the cache test, so the text is kept"],
    ["+1", "+1", "a leading + survives in cached text"],
    ["+500m", "+500m", "a leading + survives in cached text"],
    ["-500m", "-500m", "negative cached"],
    ["1.500", "1.500", "mantissa 1500 at scale -3: cached"],
    ["1.", "1.", "an empty fraction leaves mantissa 1 at scale 0: cached"],
    ["1.G", "1.G", "the same with a suffix"],
    [" 100m ", "100m", "surrounding whitespace is trimmed (JSON decoding), then cached"],
    ["0", "0", "the literal 0"],
    // DecimalExponent.
    ["1e3", "1e3", "exponent form is cached"],
    ["1E3", "1E3", "upper-case exponent is cached too"],
    ["1e+3", "1e+3", "a signed exponent is cached"],
    ["2e4", "20e3", "exponent not a multiple of three"],
    ["1.5e3", "1500", "exponent zero is written without e"],
    ["1000e0", "1e3", "trailing 000 moves into the exponent"],
    ["12e-1", "1200e-3", "negative exponents go down to a multiple of three"],
    ["1e-10", "1e-9", "rounded up to nanos, still in exponent form"],
    // Rounding up to nanos.
    ["0.0000000001", "1n", "below a nano rounds up to 1n"],
    ["1.1n", "2n", "fractions of a nano round up"],
    ["1.2345678901m", "1234568n", "the exact path rounds up"],
    ["-0.0000000001", "-1n", "negative values round away from zero"],
    // BinarySI.
    ["1Gi", "1Gi", "a mantissa not a multiple of 8 is cached"],
    ["12Mi", "12Mi", "12 & 7 != 0: cached"],
    ["-1Ki", "-1Ki", "negative binary cached"],
    ["+1Gi", "+1Gi", "a leading + survives in cached binary text"],
    ["1024Mi", "1Gi", "a multiple of 8 is rewritten with the largest binary suffix"],
    ["2048Ki", "2Mi", "2048Ki is 2Mi"],
    ["1536Mi", "1536Mi", "rewritten, but 1536 is not a multiple of 1024"],
    ["16Mi", "16Mi", "rewritten to the same text"],
    ["1.5Gi", "1536Mi", "a fraction takes the exact path"],
    ["-1.5Gi", "-1536Mi", "negative binary fraction"],
    ["1.0Gi", "1Gi", "an exact whole number stays binary"],
    ["0.5Mi", "512Ki", "512Ki"],
    ["0.5Ki", "512", "between -1024 and 1024 a binary value is written as DecimalSI"],
    ["1.5Ki", "1536", "1536 has no factor of 1024"],
    ["0.5Gi", "512Mi", "half a Gi"],
    ["0Ki", "0", "zero"],
    ["1.0000001Ki", "1024000102400n", "a binary value that is not whole is written as DecimalSI"],
    ["0.0000000001Ki", "103n", "a binary value below 1 becomes DecimalSI, rounded up to nanos"],
    ["1Ei", "1Ei", "Ei always takes the exact path, same text"],
    ["8Ei", "9223372036854775807", "BinarySI is capped at 2^63-1"],
    ["-8Ei", "-9223372036854775807", "the cap applies to the magnitude"],
    // DecimalSI is not capped, and kube 1.30 writes no suffix past E.
    ["9999999999999999999", "9999999999999999999", "a decimal over int64 keeps its value"],
    ["1000E", "1", "10^21 loses its magnitude in kube 1.30"],
    ["10000000000000000000000", "10", "10^22 likewise"],
    // Refused (ParseQuantity errors): left for validation.
    ["", undefined, "empty"],
    ["abc", undefined, "no number"],
    ["1i", undefined, "unknown suffix"],
    ["1K", undefined, "K is not a suffix"],
    ["1Gb", undefined, "trailing garbage"],
    ["1.2.3", undefined, "two decimal points"],
    ["1e", undefined, "e without an exponent"],
    ["1 Gi", undefined, "inner space"],
  ];
  for (const [input, expected, why] of cases) {
    it(`${JSON.stringify(input)} → ${String(expected)} (${why})`, () => assert.equal(canonicalQuantity(input), expected));
  }
});

describe("quantityProblem() says why kube's parser refuses a quantity", () => {
  const cases: readonly (readonly [string, "format" | "suffix" | undefined])[] = [
    ["1.2.3", "format"],
    ["", "format"],
    ["1 Gi", "format"],
    ["1Gb", "format"],
    ["1i", "suffix"],
    ["1K", "suffix"],
    ["1e", "suffix"],
    ["1kk", "suffix"],
    [" 1Gi ", undefined],
    ["+1.5e-3", undefined],
  ];
  for (const [input, expected] of cases) it(`${JSON.stringify(input)} → ${String(expected)}`, () => assert.equal(quantityProblem(input), expected));
});
