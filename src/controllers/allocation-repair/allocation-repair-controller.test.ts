import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../../test/helpers/wait.js";
import { allocationRepairController } from "./allocation-repair-controller.js";

/** Runs the loop (1 ms passes) until `looks` revision checks were made; returns how many repairs ran. */
async function passes(options: { revisions: number[]; settles: boolean[]; looks: number }): Promise<number> {
  let looked = 0;
  let repaired = 0;
  const stop = new AbortController();
  const running = allocationRepairController({
    intervalMs: 1,
    revision: () => options.revisions[Math.min(looked++, options.revisions.length - 1)] ?? 0,
    repair: async () => options.settles[Math.min(repaired++, options.settles.length - 1)] ?? true,
  }).run(stop.signal);
  await waitFor(() => looked >= options.looks, { what: `${options.looks} passes` });
  stop.abort();
  await running;
  return repaired;
}

describe("allocation repair at idle", () => {
  it("repairs once, then skips every pass while the store's revision stays", async () => {
    assert.equal(await passes({ revisions: [7], settles: [true], looks: 20 }), 1);
  });

  it("runs again while a value is suspect (released only at the second pass), then skips", async () => {
    assert.equal(await passes({ revisions: [7], settles: [false, true], looks: 20 }), 2);
  });

  it("runs again when something was written", async () => {
    assert.equal(await passes({ revisions: [7, 7, 8, 8, 8, 9], settles: [true], looks: 20 }), 3);
  });

  it("runs every pass without a revision (a shared etcd store)", async () => {
    let repaired = 0;
    const stop = new AbortController();
    const running = allocationRepairController({
      intervalMs: 1,
      repair: async () => {
        repaired++;
        return true;
      },
    }).run(stop.signal);
    await waitFor(() => repaired >= 5, { what: "five passes" });
    stop.abort();
    await running;
    assert.ok(repaired >= 5);
  });
});
