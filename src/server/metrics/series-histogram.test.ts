import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Histogram, Registry } from "prom-client";
import { SeriesHistogram } from "./series-histogram.js";

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5];
const OBSERVED: readonly [string, string, number][] = [
  ["a", "false", 0.001],
  ["a", "false", 0.005],
  ["a", "false", 0.03],
  ["b", "true", 3],
  ["a", "false", 0.7],
  ["b", "false", 0.1],
];

/** The same observations through prom-client's Histogram and through SeriesHistogram, each on its own registry. */
async function rendered(): Promise<{ own: Registry; fast: Registry }> {
  const own = new Registry();
  const fast = new Registry();
  own.setDefaultLabels({ server: "x" });
  fast.setDefaultLabels({ server: "x" });
  const config = { name: "demo_seconds", help: "A demo.", labelNames: ["name", "rejected"] as const, buckets: BUCKETS };
  const reference = new Histogram({ ...config, registers: [own] });
  const series = new SeriesHistogram({ ...config, buckets: [...BUCKETS], registers: [fast] });
  for (const [name, rejected, value] of OBSERVED) {
    reference.labels({ name, rejected }).observe(value);
    series.series({ name, rejected }).observe(value);
  }
  return { own, fast };
}

describe("SeriesHistogram", () => {
  it("renders exactly what prom-client's Histogram renders for the same observations (text and JSON)", async () => {
    const { own, fast } = await rendered();
    const text = await fast.metrics();
    assert.equal(text, await own.metrics());
    assert.match(text, /demo_seconds_bucket\{le="0.1",server="x",name="a",rejected="false"\} 3/);
    assert.match(text, /demo_seconds_bucket\{le="\+Inf",server="x",name="b",rejected="true"\} 1/);
    assert.match(text, /demo_seconds_sum\{server="x",name="a",rejected="false"\} 0.736/);
    assert.deepEqual(await fast.getMetricsAsJSON(), await own.getMetricsAsJSON());
  });

  it("forgets every series on reset, as prom-client does, and shows one again once observed", async () => {
    const { own, fast } = await rendered();
    own.resetMetrics();
    fast.resetMetrics();
    assert.equal(await fast.metrics(), await own.metrics());
    assert.doesNotMatch(await fast.metrics(), /demo_seconds_count/);
    const reference = own.getSingleMetric("demo_seconds") as Histogram<"name" | "rejected">;
    const series = fast.getSingleMetric("demo_seconds") as SeriesHistogram<"name" | "rejected">;
    reference.labels({ name: "a", rejected: "false" }).observe(0.2);
    series.series({ name: "a", rejected: "false" }).observe(0.2);
    assert.equal(await fast.metrics(), await own.metrics());
    assert.match(await fast.metrics(), /demo_seconds_count\{server="x",name="a",rejected="false"\} 1/);
  });
});
