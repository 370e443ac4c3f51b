import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DroppedRequests } from "./dropped-requests.js";

/** A tracker on a clock the test moves, and a helper dropping `count` requests at second `at`. */
function tracker(): { drop(at: number, count: number, level?: string): number; tracked: DroppedRequests } {
  const start = 1_764_000_000;
  let now = start;
  const tracked = new DroppedRequests(() => now * 1000 + 250);
  return {
    tracked,
    drop(at, count, level = "tenants") {
      now = start + at;
      let answer = 0;
      for (let index = 0; index < count; index++) answer = tracked.record(level);
      return answer;
    },
  };
}

describe("DroppedRequests: flow control's Retry-After (kube's dropped-requests tracker)", () => {
  it("starts at 1 s, doubles while rejections keep coming at three a second or more, at most once per Retry-After", () => {
    const { drop } = tracker();
    assert.equal(drop(0, 5), 1, "a level's first rejections");
    assert.equal(drop(1, 11), 2, "5 in the last second ≥ 3 × 1");
    assert.equal(drop(2, 1), 2, "grown a second ago: not again within 2 s");
    assert.equal(drop(3, 11), 4, "12 in the last 2 s ≥ 3 × 2");
    assert.equal(drop(4, 1), 4);
  });

  it("shrinks by a second at each new second of rejections once fewer than one a second came", () => {
    const { drop } = tracker();
    drop(0, 5);
    drop(1, 11);
    drop(3, 11);
    assert.equal(drop(4, 1), 4);
    assert.equal(drop(20, 1), 3, "nothing in the last 4 s");
    assert.equal(drop(21, 1), 2, "1 in the last 3 s");
    assert.equal(drop(22, 1), 2, "2 in the last 2 s: kept");
    assert.equal(drop(26, 1), 1, "nothing in the last 2 s");
    assert.equal(drop(30, 1), 1, "never below 1");
  });

  it("stops at 32 s under a steady flood", () => {
    const { drop } = tracker();
    const seen: number[] = [];
    for (let second = 0; second <= 70; second++) seen.push(drop(second, 100));
    assert.deepEqual([...new Set(seen)], [1, 2, 4, 8, 16, 32]);
    assert.equal(seen.at(-1), 32);
  });

  it("keeps each priority level apart", () => {
    const { drop, tracked } = tracker();
    drop(0, 10, "tenants");
    drop(0, 1, "workload-low");
    assert.equal(drop(1, 1, "tenants"), 2);
    assert.equal(drop(1, 1, "workload-low"), 1);
    assert.equal(tracked.retryAfter("global-default"), 1, "a level that never rejected");
  });
});
