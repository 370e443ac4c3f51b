import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditEvent } from "./event.js";
import { goQuote } from "../../util/go-escapes.js";
import { legacyLine, rfc3339Nano } from "./event-legacy.js";

const base: AuditEvent = {
  kind: "Event",
  apiVersion: "audit.orch.io/v1",
  level: "Metadata",
  auditID: "4a7d9f1e-0000-4000-8000-000000000001",
  stage: "ResponseComplete",
  requestURI: "/api/v1/namespaces/team/pods?limit=500",
  verb: "list",
  user: { username: "alice", groups: ["dev", "system:authenticated"] },
  sourceIPs: ["10.0.0.7", "127.0.0.1"],
  userAgent: "kubectl/v1.33.0 (linux/amd64)",
  objectRef: { resource: "pods", namespace: "team", apiVersion: "v1" },
  responseStatus: { metadata: {}, code: 200 },
  requestReceivedTimestamp: "2026-11-28T14:03:05.120000Z",
  stageTimestamp: "2026-11-28T14:03:05.130000Z",
};

describe("kube's legacy audit line (--audit-log-format legacy)", () => {
  it("quotes every field with Go's %q, the groups list quoted twice, the time as RFC3339Nano", () => {
    assert.equal(
      legacyLine(base),
      '2026-11-28T14:03:05.12Z AUDIT: id="4a7d9f1e-0000-4000-8000-000000000001" stage="ResponseComplete" ip="10.0.0.7" method="list" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.33.0 (linux/amd64)" namespace="team" uri="/api/v1/namespaces/team/pods?limit=500" response="200"',
    );
  });

  it("impersonation, no groups, no namespace, no status, no source IP: kube's placeholders", () => {
    const line = legacyLine({
      ...base,
      user: { username: "admin" },
      impersonatedUser: { username: "bob", groups: ["qa"] },
      objectRef: { resource: "namespaces", apiVersion: "v1" },
      responseStatus: undefined,
      sourceIPs: undefined,
    });
    assert.match(line, / ip="<unknown>" method="list" user="admin" groups="<none>" as="bob" asgroups="\\"qa\\"" /);
    assert.match(line, / namespace="<none>" /);
    assert.match(line, / response="<deferred>"$/);
    const anonymous = legacyLine({ ...base, user: {}, impersonatedUser: { username: "bob" } });
    assert.match(anonymous, / user="<none>" groups="<none>" as="bob" asgroups="<lookup>" /);
  });

  it("Go's %q escapes and RFC3339Nano's trimmed fraction", () => {
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goQuote("tab\tnl\nbell\x07del\x7fnul\x00"), '"tab\\tnl\\nbell\\adel\\x7fnul\\x00"');
    assert.equal(goQuote("héllo ✓ 😀"), '"héllo ✓ 😀"');
    assert.equal(goQuote("lone \ud800"), '"lone \ufffd"');
    assert.equal(rfc3339Nano("2026-11-28T14:03:05.000000Z"), "2026-11-28T14:03:05Z");
    assert.equal(rfc3339Nano("2026-11-28T14:03:05.123400Z"), "2026-11-28T14:03:05.1234Z");
    assert.equal(rfc3339Nano("2026-11-28T14:03:05.123456Z"), "2026-11-28T14:03:05.123456Z");
  });
});
