import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";
import { inProcessServer } from "../src/testing/in-process.js";
import { waitFor } from "./helpers/wait.js";

type Json = Record<string, unknown>;
const LEASE = "/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager";
const CM = "/api/v1/namespaces/default/configmaps";
const TIMINGS = { enabled: true, leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 50 };

describe("leader election of the controllers", () => {
  it("two servers on one store: one holds the Lease; when it stops the other takes over and collects garbage", async () => {
    const storage = new MemoryStorage();
    const first = await inProcessServer({ storage, leaderElection: TIMINGS });
    const holderOf = async (server: typeof first): Promise<string> => {
      const lease = await server.call("GET", LEASE);
      return lease.status === 200 ? String((lease.json["spec"] as Json)["holderIdentity"] ?? "") : "";
    };
    const holder = await waitFor(async () => (await holderOf(first)) || undefined, { what: "the first server holding the lease" });
    const second = await inProcessServer({ storage, leaderElection: TIMINGS });
    try {
      // The second keeps renewing nothing: the holder stays the first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(await holderOf(second), holder);
      // Both servers are ready: the standby's controllers are reported as not leading, not unsynced.
      for (const server of [first, second]) assert.equal((await server.call("GET", "/readyz")).status, 200);
      await waitFor(async () => (await first.call("GET", "/readyz/controller-garbagecollector")).status === 200, {
        what: "the garbage collector's check, /readyz/controller-garbagecollector",
      });
      const [leader, standby] = [first, second];
      await leader.server.stop();
      const next = await waitFor(
        async () => {
          const now = await holderOf(standby);
          return now !== "" && now !== holder ? now : undefined;
        },
        { what: "the standby taking the lease", timeoutMs: 10_000 },
      );
      assert.notEqual(next, holder);
      const created = await standby.call("POST", CM, {
        body: {
          metadata: { name: "orphaned", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "33333333-0000-0000-0000-000000000000" }] },
        },
      });
      assert.equal(created.status, 201);
      await waitFor(async () => (await standby.call("GET", `${CM}/orphaned`)).status === 404, { what: "the new leader collecting" });
    } finally {
      await second.server.stop();
      await storage.close();
    }
  });
});
