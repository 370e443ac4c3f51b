import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startEtcdCompactor } from "./etcd-compactor.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { type CompactionResult, EtcdStorage } from "./etcd-storage.js";

describe("startEtcdCompactor(): two servers on one etcd member", { timeout: 60_000 }, () => {
  let cluster: EtcdCluster;
  let first: EtcdStorage;
  let second: EtcdStorage;
  let root: EtcdStorage;

  before(async () => {
    cluster = await startEtcdCluster();
    first = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/registry" });
    second = await EtcdStorage.open({ endpoints: cluster.endpoints, prefix: "/registry" });
    root = await EtcdStorage.open({ endpoints: cluster.endpoints });
  });

  after(async () => {
    await Promise.all([first?.close(), second?.close(), root?.close()]);
    await cluster?.stop();
  });

  test("compactTurn(): only one server compacts per interval, through compact_rev_key, to a revision one interval old", async () => {
    // The timers are off: each round below is one interval in which both servers take their turn.
    const compactors = [startEtcdCompactor(first, { intervalMs: 60_000, timer: false }), startEtcdCompactor(second, { intervalMs: 60_000, timer: false })];
    try {
      let writes = 0;
      const roundStarts: number[] = [];
      const compactedPerRound: (number | undefined)[][] = [];
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 3; i++) await first.create(`/configmaps/default/c-${writes++}`, `{"n":${writes}}`);
        roundStarts.push(await first.fetchRevision());
        // Alternate who goes first: whoever does wins the compare-and-swap of that interval.
        const order = round % 2 === 0 ? compactors : [...compactors].reverse();
        const results: CompactionResult[] = [];
        for (const compactor of order) results.push(await compactor.turn());
        compactedPerRound.push(results.map((result) => result.compacted));
      }
      // The first interval compacts nothing (no server has a previous revision yet); then exactly one per interval.
      assert.deepEqual(compactedPerRound[0], [undefined, undefined]);
      for (const [round, compacted] of compactedPerRound.entries()) {
        if (round === 0) continue;
        const done = compacted.filter((revision) => revision !== undefined);
        assert.equal(done.length, 1, `round ${round}: ${JSON.stringify(compacted)}`);
        // What it compacted to was current during the previous interval: one interval of history stays readable.
        const revision = done[0] as number;
        assert.ok(revision <= (roundStarts[round] as number), `round ${round}: compacted to ${revision}, interval began at ${roundStarts[round]}`);
        assert.ok(
          revision >= (roundStarts[round - 1] as number),
          `round ${round}: compacted to ${revision}, previous interval began at ${roundStarts[round - 1]}`,
        );
      }
      // The coordination key is kube's, at etcd's root, and holds the last winner's revision.
      const key = await root.get("compact_rev_key");
      assert.match(key.value, /^\d+$/);
      // History before the last compaction is gone for both servers; the last interval's is readable.
      const last = compactedPerRound.at(-1)?.find((revision) => revision !== undefined) as number;
      await assert.rejects(second.get("/configmaps/default/c-0", { revision: last - 1 }), /compacted/i);
      assert.equal((await second.get("/configmaps/default/c-0", { revision: last })).value, '{"n":1}');
    } finally {
      for (const compactor of compactors) compactor.stop();
    }
  });
});
