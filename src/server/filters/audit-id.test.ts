import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addResponseHeader, withResponseHeaders, type RequestContext } from "../../request/context.js";
import { auditIdFilter } from "./audit-id.js";

function context(headers: Record<string, string> = {}): RequestContext {
  return {
    request: {
      method: "GET",
      path: "/",
      query: new URLSearchParams(),
      headers,
      body: async () => Buffer.alloc(0),
      peerCertificate: undefined,
      signal: new AbortController().signal,
    },
    warnings: [],
  };
}

describe("auditIdFilter()", () => {
  it("answers annotation snapshots: an object already answered never changes, later annotations go to a new one", async () => {
    const snapshots: (Readonly<Record<string, string>> | undefined)[] = [];
    const handler = auditIdFilter()(async (given) => {
      const recorder = given.audit;
      assert.ok(recorder !== undefined);
      snapshots.push(recorder.annotations("Metadata"));
      recorder.annotate("first", "1");
      snapshots.push(recorder.annotations("Metadata"));
      recorder.annotate("second", "2");
      recorder.annotate("first", "ignored");
      snapshots.push(recorder.annotations("Metadata"));
      recorder.annotate("patch", "p", "Request");
      snapshots.push(recorder.annotations("Metadata"), recorder.annotations("Request"));
      return { status: 200, headers: {}, body: "" };
    });
    const given = context();
    await handler(given);
    assert.match(String(given.responseHeaders?.["audit-id"]), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(snapshots, [undefined, { first: "1" }, { first: "1", second: "2" }, { first: "1", second: "2" }, { first: "1", second: "2", patch: "p" }]);
  });

  it("keeps the client's Audit-ID", async () => {
    const given = context({ "audit-id": "given" });
    await auditIdFilter()(async () => ({ status: 200, headers: {}, body: "" }))(given);
    assert.equal(given.responseHeaders?.["audit-id"], "given");
  });

  it("puts the header in the request's responseHeaders, after a filter's own, without copying the answer", async () => {
    const answer = { status: 200, headers: { "content-type": "text/plain" }, body: "" };
    const given = context();
    const response = await auditIdFilter()(async (inner) => {
      addResponseHeader(inner, "x-later", "1");
      return answer;
    })(given);
    assert.equal(response, answer);
    assert.deepEqual(Object.keys(given.responseHeaders ?? {}), ["audit-id", "x-later"]);
    const written = withResponseHeaders(given, response);
    assert.equal(written.headers["audit-id"], given.responseHeaders?.["audit-id"]);
    assert.equal(written.headers["content-type"], "text/plain");
  });
});
