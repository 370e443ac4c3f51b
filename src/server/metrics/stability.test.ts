import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MetricVisibility, ShowHiddenMetricsError } from "./stability.js";

describe("metric stability and hiding", () => {
  const deprecatedIn = (version: string) => ({ stabilityLevel: "STABLE", deprecatedVersion: version }) as const;

  it("prefixes help with the stability level and, when deprecated, since when", () => {
    const visibility = new MetricVisibility("v1.30.0+orch");
    assert.equal(visibility.help("Counts.", { stabilityLevel: "ALPHA" }), "[ALPHA] Counts.");
    assert.equal(visibility.help("Counts.", deprecatedIn("1.28.0")), "[STABLE] (Deprecated since 1.28.0) Counts.");
  });

  it("a deprecated metric stays registered for three releases, then is hidden", () => {
    const visibility = new MetricVisibility("v1.30.0+orch");
    assert.equal(visibility.visible({ stabilityLevel: "STABLE" }), true);
    assert.equal(visibility.visible(deprecatedIn("1.30.0")), true);
    assert.equal(visibility.visible(deprecatedIn("1.28.0")), true);
    assert.equal(visibility.visible(deprecatedIn("1.27.0")), false, "deprecated in 1.27: hidden from 1.30");
    assert.equal(visibility.visible(deprecatedIn("1.20.0")), false);
  });

  it("--show-hidden-metrics-for-version=<previous minor> shows the metrics still visible in that version", () => {
    const visibility = new MetricVisibility("v1.30.0+orch", "1.29");
    assert.equal(visibility.visible(deprecatedIn("1.27.0")), true, "visible in 1.29, so shown again");
    assert.equal(visibility.visible(deprecatedIn("1.26.0")), false, "already hidden in 1.29");
  });

  it("only the previous minor version is allowed", () => {
    for (const value of ["1.28", "1.30", "1.29.1", "v1.29", "one"]) {
      assert.throws(
        () => new MetricVisibility("v1.30.0", value),
        (error: unknown) =>
          error instanceof ShowHiddenMetricsError &&
          error.message === "--show-hidden-metrics-for-version must be omitted or have the value '1.29'. Only the previous minor version is allowed.",
        value,
      );
    }
  });
});
