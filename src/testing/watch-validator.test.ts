import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AcknowledgedWrite, type ObservedEvent, WatchValidator } from "./watch-validator.js";

function event(type: string, name: string, revision: number): ObservedEvent {
  return { type, object: { metadata: { name, resourceVersion: String(revision) } } };
}

const WRITES: readonly AcknowledgedWrite[] = [
  { name: "a", revision: 11, type: "ADDED" },
  { name: "b", revision: 12, type: "ADDED" },
  { name: "a", revision: 13, type: "MODIFIED" },
  { name: "b", revision: 14, type: "DELETED" },
];

function validated(events: readonly ObservedEvent[], startRevision = 10, upTo?: number): string[] {
  const validator = new WatchValidator({ startRevision });
  for (const each of events) validator.observe(each);
  return validator.check(WRITES, upTo);
}

describe("WatchValidator", () => {
  it("accepts a complete ordered stream, with unacknowledged writes between and a bookmark after", () => {
    assert.deepEqual(validated([event("ADDED", "a", 11), event("ADDED", "b", 12), event("MODIFIED", "a", 13), event("DELETED", "b", 14)]), []);
    const withUnacknowledged = [event("ADDED", "a", 11), event("ADDED", "b", 12), event("ADDED", "in-flight", 13), event("DELETED", "b", 14)];
    // "in-flight" took revision 13 in this stream, so the acknowledged MODIFIED a at 13 is not there.
    assert.deepEqual(validated(withUnacknowledged), ["at 13: want MODIFIED a, saw ADDED in-flight"]);
    const ordered = [event("ADDED", "a", 11), event("ADDED", "b", 12), event("MODIFIED", "a", 13), event("DELETED", "b", 14)];
    assert.deepEqual(validated([...ordered, event("ADDED", "in-flight", 15), event("BOOKMARK", "", 20)]), []);
  });

  it("expects only writes after the start and up to what the stream reached", () => {
    assert.deepEqual(validated([event("MODIFIED", "a", 13), event("DELETED", "b", 14)], 12), []);
    assert.deepEqual(validated([event("ADDED", "a", 11), event("ADDED", "b", 12)]), []);
  });

  it("reports a gap: an acknowledged write the stream passed without delivering", () => {
    assert.deepEqual(validated([event("ADDED", "a", 11), event("MODIFIED", "a", 13), event("DELETED", "b", 14)]), ["ADDED b at 12 seen 0 times (want once)"]);
    // The gap also counts up to an explicit end (the final write the test waited for).
    assert.deepEqual(validated([event("ADDED", "a", 11)], 10, 12), ["ADDED b at 12 seen 0 times (want once)"]);
  });

  it("reports a repeat and an out-of-order event", () => {
    const repeated = validated([event("ADDED", "a", 11), event("ADDED", "a", 11), event("ADDED", "b", 12)]);
    assert.equal(repeated.length, 2, repeated.join("\n"));
    assert.match(repeated[0] ?? "", /not after 11/);
    const reordered = validated([event("ADDED", "b", 12), event("ADDED", "a", 11)]);
    assert.match(reordered[0] ?? "", /ADDED a at 11 is not after 12/);
  });

  it("reports the wrong event type or name at an acknowledged revision", () => {
    assert.deepEqual(validated([event("ADDED", "a", 11), event("MODIFIED", "b", 12)]), ["at 12: want ADDED b, saw MODIFIED b"]);
  });

  it("reports a bookmark that ran ahead of an event it covers", () => {
    const problems = validated([event("ADDED", "a", 11), event("BOOKMARK", "", 12), event("ADDED", "b", 12)]);
    assert.ok(
      problems.some((problem) => /not after 12/.test(problem)),
      problems.join("\n"),
    );
    assert.ok(
      problems.some((problem) => /bookmark at 12 .* came before ADDED b at 12/.test(problem)),
      problems.join("\n"),
    );
  });

  it("reports an ERROR event (a resume answered 410) and follows a resumed stream", () => {
    const validator = new WatchValidator({ startRevision: 10 });
    validator.observe(event("ADDED", "a", 11));
    assert.equal(validator.resumeRevision, 11);
    validator.observe({ type: "ERROR", object: { metadata: {} } });
    validator.observe(event("ADDED", "b", 12));
    assert.equal(validator.check(WRITES, 12).length, 1);
  });
});
