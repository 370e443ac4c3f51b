import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { QuotaLedger } from "./quota-usage.js";

const pod = (name: string): ApiObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "ns" } });

describe("QuotaLedger's charges", () => {
  it("expire without a quota controller asking (a server that does not hold the controllers' Lease)", () => {
    let now = 0;
    const ledger = new QuotaLedger(() => now);
    for (let i = 0; i < 1000; i++) ledger.charge("", "pods", pod(`p${i}`));
    assert.equal(ledger.pendingCount, 1000);
    now = 61_000;
    ledger.charge("", "pods", pod("late"));
    assert.equal(ledger.pendingCount, 1, "the charges older than a minute are gone");
  });

  it("keep a charge made again as new, and the unexpired ones", () => {
    let now = 0;
    const ledger = new QuotaLedger(() => now);
    ledger.charge("", "pods", pod("a"));
    ledger.charge("", "pods", pod("b"));
    now = 30_000;
    ledger.charge("", "pods", pod("a"));
    now = 70_000;
    ledger.charge("", "pods", pod("c"));
    assert.equal(ledger.pendingCount, 2, "b expired behind a's renewed charge");
    assert.deepEqual(
      ledger.inFlight("ns", new Set()).map((entry) => entry.object.metadata.name),
      ["a", "c"],
    );
  });
});
