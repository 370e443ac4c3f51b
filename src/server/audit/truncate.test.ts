import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditBackend, AuditEvent } from "./event.js";
import { encodeEvent } from "./event-json.js";
import { truncatingBackend } from "./truncate.js";

function event(id: number, body = ""): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.orch.io/v1",
    level: "RequestResponse",
    auditID: `id-${id}`,
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/default/configmaps",
    verb: "create",
    user: { username: "alice" },
    requestObject: body === "" ? undefined : { data: { big: body } },
    responseObject: body === "" ? undefined : { data: { big: body } },
    annotations: { "authorization.orch.io/decision": "allow" },
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
  };
}

function recorder(): { backend: AuditBackend; batches: AuditEvent[][] } {
  const batches: AuditEvent[][] = [];
  return { batches, backend: { name: "log", processEvents: (events) => void batches.push([...events]), shutdown: async () => {} } };
}

describe("truncatingBackend (--audit-*-truncate-enabled)", () => {
  const size = (value: AuditEvent): number => Buffer.byteLength(encodeEvent(value));

  it("an event over the maximum loses its bodies and is annotated truncated; smaller ones pass unchanged", () => {
    const { backend, batches } = recorder();
    const dropped: Error[] = [];
    const small = event(1);
    const truncating = truncatingBackend(backend, {
      maxEventBytes: size(small) + 200,
      maxBatchBytes: 1 << 20,
      annotationKey: "audit.orch.io/truncated",
      onDropped: (error) => dropped.push(error),
    });
    truncating.processEvents([small, event(2, "x".repeat(5000))]);
    assert.equal(batches.length, 1);
    assert.equal(batches[0]?.[0], small);
    const truncated = batches[0]?.[1] as AuditEvent;
    assert.equal(truncated.requestObject, undefined);
    assert.equal(truncated.responseObject, undefined);
    assert.deepEqual(truncated.annotations, { "authorization.orch.io/decision": "allow", "audit.orch.io/truncated": "true" });
    assert.equal(truncated.auditID, "id-2");
    assert.deepEqual(dropped, []);
  });

  it("an event still too large without its bodies is dropped and reported", () => {
    const { backend, batches } = recorder();
    const dropped: Error[] = [];
    const truncating = truncatingBackend(backend, {
      maxEventBytes: 100,
      maxBatchBytes: 1 << 20,
      annotationKey: "audit.orch.io/truncated",
      onDropped: (error) => dropped.push(error),
    });
    truncating.processEvents([event(1, "x".repeat(500))]);
    assert.deepEqual(batches, []);
    assert.equal(dropped.length, 1);
    assert.match(dropped[0]?.message ?? "", /event is too large even after truncating/);
  });

  it("events go on in batches of at most the batch maximum, in order", () => {
    const { backend, batches } = recorder();
    const one = size(event(1));
    const truncating = truncatingBackend(backend, { maxEventBytes: one + 10, maxBatchBytes: one * 2 + 5, annotationKey: "audit.orch.io/truncated" });
    truncating.processEvents([1, 2, 3, 4, 5].map((id) => event(id)));
    assert.deepEqual(
      batches.map((batch) => batch.map((item) => item.auditID)),
      [["id-1", "id-2"], ["id-3", "id-4"], ["id-5"]],
    );
  });
});
