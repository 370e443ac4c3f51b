import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runHealth, withGracePeriod, type HealthCheck } from "./health.js";

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

  it("runs the checks together, so a slow check does not hold the others back, and lists them in order", async () => {
    // `slow` finishes only once `second` has started: run one after the other, this never answers.
    let secondStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      secondStarted = resolve;
    });
    const together: HealthCheck[] = [
      { name: "slow", check: () => started.then(failing) },
      { name: "second", check: () => secondStarted() },
      { name: "third", check: () => {} },
    ];
    const whole = await runHealth("readyz", together, "", new URLSearchParams("exclude=third"), signal);
    assert.equal(whole.status, 500);
    assert.equal(whole.body, "[-]slow failed: reason withheld\n[+]second ok\n[+]third excluded: ok\nreadyz check failed\n");
  });

  it("--livez-grace-period: an unfinished check passes until the period since the start is over", async () => {
    let now = 1_000;
    const hook = withGracePeriod({ name: "poststarthook/x", check: failing }, 1_000, 5_000, () => now);
    const livez = (): Promise<{ status: number }> => runHealth("livez", [hook], "", new URLSearchParams(), signal);
    now = 5_999;
    assert.equal((await livez()).status, 200);
    assert.equal((await runHealth("livez", [hook], "poststarthook/x", new URLSearchParams(), signal)).status, 200);
    now = 6_000;
    assert.equal((await livez()).status, 500);
    // No period (kube's default 0s): the check itself from the start.
    const plain = withGracePeriod({ name: "poststarthook/x", check: failing }, now, 0, () => now);
    assert.equal((await runHealth("livez", [plain], "", new URLSearchParams(), signal)).status, 500);
  });
});
