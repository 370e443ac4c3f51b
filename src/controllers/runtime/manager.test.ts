import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ControllerManager } from "./manager.js";
import type { ManagedController } from "./queue-controller.js";

/** A controller that records that it ran and syncs when told. */
function probe(name: string): ManagedController & { started: boolean; sync(): void } {
  let synced = false;
  const controller = {
    name,
    started: false,
    get synced() {
      return synced;
    },
    sync() {
      synced = true;
    },
    run(signal: AbortSignal) {
      controller.started = true;
      return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  };
  return controller;
}

describe("controller manager start-up order", () => {
  it("startOwn starts only the server's own controllers; startElected the rest; readyz names each, passing once synced", async () => {
    const own = probe("own");
    const elected = probe("elected");
    const manager = new ControllerManager({ elected: [elected], everywhere: [own] });
    manager.startOwn();
    assert.equal(own.started, true);
    assert.equal(elected.started, false, "kube-controller-manager's controllers wait for startElected");
    const failing = (): string[] =>
      manager.readyz().flatMap((check) => {
        try {
          check.check();
          return [];
        } catch {
          return [check.name];
        }
      });
    assert.deepEqual(failing(), ["controller-elected", "controller-own"]);
    manager.startElected();
    assert.equal(elected.started, true);
    own.sync();
    elected.sync();
    await manager.waitForSync(1000);
    assert.deepEqual(failing(), []);
    await manager.stop();
  });
});
