import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runHealth, type HealthCheck } from "./health.js";

const failing = (): void => {
  throw new Error("not synced");
};

describe("health checks", () => {
  const checks: HealthCheck[] = [
    { name: "ping", check: () => {} },
    // Served by name only (kube-controller-manager's controllers: kube's /readyz does not wait for them).
    { name: "controller-x", check: failing, aggregate: false },
  ];
  const signal = new AbortController().signal;

  it("a check out of the whole is left out of /readyz and its verbose list", async () => {
    const whole = await runHealth("readyz", checks, "", new URLSearchParams("verbose"), signal);
    assert.equal(whole.status, 200);
    assert.equal(whole.body, "[+]ping ok\nreadyz check passed\n");
  });

  it("is still served by name, with its reason when it fails", async () => {
    const named = await runHealth("readyz", checks, "controller-x", new URLSearchParams(), signal);
    assert.equal(named.status, 500);
    assert.equal(named.body, "internal server error: not synced\n");
  });

  it("a failing check in the whole fails it", async () => {
    const whole = await runHealth("readyz", [...checks, { name: "shutdown", check: failing }], "", new URLSearchParams(), signal);
    assert.equal(whole.status, 500);
    assert.match(String(whole.body), /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
  });
});
