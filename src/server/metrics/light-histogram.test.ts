import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Histogram, Registry } from "prom-client";
import { LightHistogram } from "./light-histogram.js";

describe("LightHistogram", () => {
  it("prints what a prom-client Histogram prints for the same observations", async () => {
    const light = new Registry();
    const reference = new Registry();
    const options = { name: "h_seconds", help: "help", labelNames: ["a", "b"] as const, buckets: [0, 0.5, 1, 5] };
    const mine = new LightHistogram({ ...options, registers: [light] });
    const theirs = new Histogram({ ...options, labelNames: [...options.labelNames], registers: [reference] });
    const first = mine.series({ a: "x", b: "y" });
    const second = mine.series({ a: "x", b: "z" });
    for (const value of [0, 0.2, 0.5, 0.7, 3, 9]) {
      first.observe(value);
      theirs.observe({ a: "x", b: "y" }, value);
    }
    second.observe(1);
    theirs.observe({ a: "x", b: "z" }, 1);
    assert.equal(await light.metrics(), await reference.metrics());
    mine.reset();
    theirs.reset();
    assert.match(await light.metrics(), /h_seconds_count\{a="x",b="y"\} 0/);
  });
});
