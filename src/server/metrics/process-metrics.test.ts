import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMetrics } from "./metrics.js";

describe("process metrics", () => {
  it("start at the first scrape: no event-loop monitor runs in a server nobody scrapes", async () => {
    const metrics = createMetrics();
    assert.equal(metrics.registry.getSingleMetric("nodejs_eventloop_lag_p99_seconds"), undefined);
    assert.equal(metrics.registry.getSingleMetric("process_cpu_user_seconds_total"), undefined);
    const first = await metrics.registry.metrics();
    assert.match(first, /^process_cpu_user_seconds_total \d/m);
    assert.match(first, /^nodejs_eventloop_lag_seconds /m);
    assert.match(first, /^apiserver_current_inflight_requests\{/m);
    // A second scrape registers nothing twice (prom-client would throw on a duplicate name).
    assert.match(await metrics.registry.metrics(), /^process_resident_memory_bytes \d/m);
  });

  it("are left out when asked", async () => {
    const text = await createMetrics({ processMetrics: false }).registry.metrics();
    assert.doesNotMatch(text, /process_cpu_user_seconds_total|nodejs_eventloop/);
  });
});
