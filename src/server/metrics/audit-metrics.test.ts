import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { createAuditMetrics } from "./audit-metrics.js";

describe("createAuditMetrics()", () => {
  it("counts events, levels and failures; scrapes show running totals, each addition once", async () => {
    const registry = new Registry();
    const metrics = createAuditMetrics(registry);
    metrics.eventsProduced(2);
    metrics.requestLevel("Metadata");
    metrics.requestLevel("None");
    metrics.eventsFailed("buffered", 3);
    const first = await registry.metrics();
    assert.match(first, /^apiserver_audit_event_total 2$/m);
    assert.match(first, /^apiserver_audit_level_total\{level="Metadata"\} 1$/m);
    assert.match(first, /^apiserver_audit_level_total\{level="None"\} 1$/m);
    assert.match(first, /^apiserver_audit_error_total\{plugin="buffered"\} 3$/m);
    metrics.eventsProduced(1);
    metrics.requestLevel("Metadata");
    const second = await registry.metrics();
    assert.match(second, /^apiserver_audit_event_total 3$/m);
    assert.match(second, /^apiserver_audit_level_total\{level="Metadata"\} 2$/m);
    assert.match(await registry.metrics(), /^apiserver_audit_event_total 3$/m, "a scrape adds nothing by itself");
  });
});
