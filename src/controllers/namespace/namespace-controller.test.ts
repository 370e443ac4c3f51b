import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import type { ApiObject } from "../../api/object.js";
import type { ApiClient } from "../../api/client.js";
import { namespaceController } from "./namespace-controller.js";

/** A client with no namespaces whose `list` runs `duringList` first (to act mid-reconcile). */
function emptyClient(duringList: () => void): ApiClient {
  return {
    namespacedResources: () => [],
    servedResources: () => [],
    list: async () => {
      duringList();
      return { items: [] as ApiObject[], resourceVersion: "1" };
    },
    deleteCollection: async () => {},
    create: async (_resource, _namespace, object) => object,
    update: async (_resource, _namespace, _name, object) => object,
    updateSubresource: async (_resource, _namespace, _name, _subresource, object) => object,
    get: async () => undefined,
    delete: async () => false,
    changed: async function* (_resource, signal) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  };
}

describe("namespace controller", () => {
  it("stops at once when the stop signal comes while it reconciles (no wait is armed then)", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const stop = new AbortController();
      const controller = namespaceController({ client: emptyClient(() => stop.abort()), finalizer: "test/finalizer" });
      let finished = false;
      const running = controller.run(stop.signal).then(() => {
        finished = true;
      });
      // No timer is advanced: a controller that armed its 60 s resync wait would still be running.
      for (let turn = 0; turn < 20 && !finished; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(finished, true);
      await running;
    } finally {
      mock.timers.reset();
    }
  });
});
