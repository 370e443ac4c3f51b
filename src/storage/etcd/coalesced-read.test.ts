import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoalescedRead } from "./coalesced-read.js";

/** A read whose answers the test gives by hand, one pending read at a time. */
function manualRead(): { read: () => Promise<number>; sent: () => number; answer: (value: number) => void; fail: (error: Error) => void } {
  let sent = 0;
  let pending: { resolve: (value: number) => void; reject: (error: Error) => void } | undefined;
  return {
    read: () => {
      sent++;
      return new Promise<number>((resolve, reject) => (pending = { resolve, reject }));
    },
    sent: () => sent,
    answer: (value) => pending?.resolve(value),
    fail: (error) => pending?.reject(error),
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("CoalescedRead", () => {
  it("serves every caller that asked before a read was sent with that one read", async () => {
    const manual = manualRead();
    const shared = new CoalescedRead(manual.read);
    const first = shared.next();
    // The first call sends at once; these two arrive while it is out and share the NEXT read.
    const second = shared.next();
    const third = shared.next();
    assert.equal(manual.sent(), 1);
    manual.answer(10);
    assert.equal(await first, 10);
    await settle();
    assert.equal(manual.sent(), 2, "the waiting callers' read is sent once the first one ended");
    manual.answer(11);
    assert.deepEqual(await Promise.all([second, third]), [11, 11]);
    assert.equal(manual.sent(), 2);
  });

  it("never answers a caller from a read sent before it asked (linearizable per caller)", async () => {
    const manual = manualRead();
    const shared = new CoalescedRead(manual.read);
    const early = shared.next();
    const late = shared.next();
    // The write that `late` must see commits after the first read was sent: only the second read sees it.
    manual.answer(1);
    assert.equal(await early, 1);
    await settle();
    manual.answer(2);
    assert.equal(await late, 2);
  });

  it("fails exactly the callers of a failed read and recovers on the next call", async () => {
    const manual = manualRead();
    const shared = new CoalescedRead(manual.read);
    const failing = shared.next();
    const after = shared.next();
    manual.fail(new Error("etcd down"));
    await assert.rejects(failing, /etcd down/);
    await settle();
    manual.answer(5);
    assert.equal(await after, 5);
    const again = shared.next();
    manual.answer(6);
    assert.equal(await again, 6);
    assert.equal(manual.sent(), 3);
  });
});
