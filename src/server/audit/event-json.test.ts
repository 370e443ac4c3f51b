import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditEvent } from "./event.js";
import { EventJsonEncoder, encodeEvent, quoteJson } from "./event-json.js";
import { LogLines } from "./log-file.js";

const user = { username: "admin", groups: ["system:masters", "system:authenticated"] };
const objectRef = { resource: "configmaps", namespace: "default", name: "bench-audit-get", apiVersion: "v1" };

/** An event as the audit filter builds it: every field set, in kube's order, absent ones undefined. */
function event(fields: Partial<AuditEvent>): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.orch.io/v1",
    level: "Metadata",
    auditID: "0b7c2cc4-3e0c-4bd8-9b0a-2f1b3c4d5e6f",
    stage: "RequestReceived",
    requestURI: "/api/v1/namespaces/default/configmaps/bench-audit-get",
    verb: "get",
    user,
    impersonatedUser: undefined,
    sourceIPs: ["127.0.0.1"],
    userAgent: "kubectl/v1.30.0 (linux/amd64) kubernetes/abcdef",
    objectRef,
    responseStatus: undefined,
    requestObject: undefined,
    responseObject: undefined,
    requestReceivedTimestamp: "2026-11-27T10:26:00.555000Z",
    stageTimestamp: "2026-11-27T10:26:00.555000Z",
    annotations: undefined,
    ...fields,
  };
}

describe("encodeEvent() and EventJsonEncoder", () => {
  it("writes a Metadata event exactly as kube's log line (the serialized form, pinned)", () => {
    const complete = event({
      stage: "ResponseComplete",
      responseStatus: { metadata: {}, code: 200 },
      stageTimestamp: "2026-11-27T10:26:00.556000Z",
      annotations: { "authorization.orch.io/decision": "allow", "authorization.orch.io/reason": 'RBAC: allowed by ClusterRoleBinding "cluster-admin"' },
    });
    assert.equal(
      encodeEvent(complete),
      '{"kind":"Event","apiVersion":"audit.orch.io/v1","level":"Metadata","auditID":"0b7c2cc4-3e0c-4bd8-9b0a-2f1b3c4d5e6f",' +
        '"stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps/bench-audit-get","verb":"get",' +
        '"user":{"username":"admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["127.0.0.1"],' +
        '"userAgent":"kubectl/v1.30.0 (linux/amd64) kubernetes/abcdef",' +
        '"objectRef":{"resource":"configmaps","namespace":"default","name":"bench-audit-get","apiVersion":"v1"},' +
        '"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-27T10:26:00.555000Z",' +
        '"stageTimestamp":"2026-11-27T10:26:00.556000Z",' +
        '"annotations":{"authorization.orch.io/decision":"allow","authorization.orch.io/reason":"RBAC: allowed by ClusterRoleBinding \\"cluster-admin\\""}}',
    );
  });

  const cases: { what: string; event: AuditEvent }[] = [
    { what: "the RequestReceived event", event: event({}) },
    {
      what: "no source IPs, user agent or objectRef (an in-process non-resource request)",
      event: event({ sourceIPs: undefined, userAgent: undefined, objectRef: undefined, requestURI: "/healthz" }),
    },
    {
      what: "a user with uid and extra, an impersonated user",
      event: event({
        user: {
          username: "system:serviceaccount:team:robot",
          uid: "u-1",
          groups: ["system:serviceaccounts"],
          extra: { "authentication.kubernetes.io/pod-name": ["p-1"] },
        },
        impersonatedUser: { username: "bob", groups: [] },
      }),
    },
    {
      what: "a failure status with details, request and response bodies",
      event: event({
        level: "RequestResponse",
        stage: "ResponseComplete",
        responseStatus: {
          metadata: {},
          status: "Failure",
          message: 'configmaps "x" already exists',
          reason: "AlreadyExists",
          details: { name: "x", kind: "configmaps" },
          code: 409,
        },
        requestObject: { metadata: { name: "x" }, data: { "a\nb": "\u2028", n: 1.5, list: [null, true] } },
        responseObject: { kind: "Status", code: 409 },
      }),
    },
    {
      what: "strings needing escapes: quotes, backslashes, controls, a lone surrogate, non-ASCII",
      event: event({
        requestURI: '/api/v1/namespaces/default/configmaps?labelSelector=a%3D"b"\\c',
        userAgent: "agent\u0001\t\u007f é 😀 \ud800",
        sourceIPs: ["10.0.0.1", "::1", 'x"y'],
        objectRef: {
          resource: "configmaps",
          namespace: "default",
          name: "naïve\\name",
          uid: "u",
          apiGroup: "apps",
          apiVersion: "v1",
          resourceVersion: "12",
          subresource: "status",
        },
        annotations: { 'key"quoted': "value\\with\nnewline", "": "" },
      }),
    },
    { what: "empty annotations, empty user groups", event: event({ annotations: {}, user: { username: "", groups: [] } }) },
    {
      what: "the Panic stage with an internal error",
      event: event({
        stage: "Panic",
        responseStatus: { metadata: {}, status: "Failure", message: "an internal error occurred", reason: "InternalError", code: 500 },
      }),
    },
  ];
  for (const { what, event: sample } of cases) {
    it(`equals JSON.stringify: ${what}`, () => {
      assert.equal(encodeEvent(sample), JSON.stringify(sample));
      assert.deepEqual(JSON.parse(encodeEvent(sample)), JSON.parse(JSON.stringify(sample)));
    });
    it(`encodeInto writes the same line as UTF-8: ${what}`, () => {
      const lines = new LogLines(16);
      // Twice with one encoder: the second line copies the request's head and middle from the first.
      const encoder = new EventJsonEncoder();
      encoder.encodeInto(sample, lines);
      encoder.encodeInto(sample, lines);
      const line = `${JSON.stringify(sample)}\n`;
      assert.equal(lines.view(0, lines.byteLength).toString("utf8"), line + line);
      assert.equal(lines.count, 2);
      assert.equal(lines.end(0), Buffer.byteLength(line));
    });
  }

  it("encodeInto: a request's lines stay right across a clear of the buffer, other requests' lines between, and a line that failed", () => {
    const lines = new LogLines(64);
    const written: string[] = [];
    const flush = (): void => {
      written.push(lines.view(0, lines.byteLength).toString("utf8"));
      lines.clear();
    };
    const first = new EventJsonEncoder();
    const second = new EventJsonEncoder();
    const received = event({});
    const other = event({ auditID: "other-request", requestURI: "/api/v1/pods", objectRef: undefined, userAgent: "é" });
    const complete = event({ stage: "ResponseComplete", responseStatus: { metadata: {}, code: 200 }, annotations: { a: "1" } });
    // A body JSON cannot write: the line is dropped, and nothing later copies its bytes (the
    // third request's head and middle were first written in it, then overwritten by another line).
    const third = new EventJsonEncoder();
    const thirdReceived = event({ auditID: "third-request" });
    const broken = event({ auditID: "third-request", stage: "ResponseComplete", requestObject: { n: 1n } });
    assert.throws(() => third.encodeInto(broken, lines), TypeError);
    first.encodeInto(received, lines);
    second.encodeInto(other, lines);
    third.encodeInto(thirdReceived, lines);
    first.encodeInto(complete, lines);
    flush();
    // After the clear the buffer's old bytes are gone: the head and middle are written anew.
    second.encodeInto({ ...other, stage: "ResponseComplete", responseStatus: { metadata: {}, code: 404 } }, lines);
    first.encodeInto(complete, lines);
    flush();
    const expected = [
      [received, other, thirdReceived, complete].map((sample) => `${JSON.stringify(sample)}\n`).join(""),
      [{ ...other, stage: "ResponseComplete", responseStatus: { metadata: {}, code: 404 } }, complete].map((sample) => `${JSON.stringify(sample)}\n`).join(""),
    ];
    assert.deepEqual(written, expected);
  });

  it("one encoder over a request's events reuses only what did not change (a create's objectRef filled in later, annotations added)", () => {
    const encoder = new EventJsonEncoder();
    const received = event({ verb: "create", objectRef: { resource: "configmaps", namespace: "default", apiVersion: "v1" } });
    const complete = event({
      verb: "create",
      stage: "ResponseComplete",
      objectRef: { resource: "configmaps", namespace: "default", name: "made", apiVersion: "v1" },
      impersonatedUser: { username: "bob" },
      responseStatus: { metadata: {}, code: 201 },
      stageTimestamp: "2026-11-27T10:26:01.000000Z",
      annotations: { a: "1" },
    });
    const later = event({ ...complete, stage: "ResponseComplete", annotations: { a: "1", b: "2" }, requestReceivedTimestamp: "2026-11-27T10:26:02.000000Z" });
    const other = event({ auditID: "another", level: "Request", apiVersion: "audit.k8s.io/v1", requestURI: "/api/v1/pods", user: { username: "carol" } });
    for (const sample of [received, complete, complete, later, other, received]) assert.equal(encoder.encode(sample), JSON.stringify(sample));
  });

  it("parts kept from one request to the next (annotations, code-only statuses, apiVersion and level) never leak into a different event", () => {
    const annotationSets: Record<string, string>[] = [
      { a: "1", b: "2" },
      { a: "1", b: "2" },
      { a: "1", b: "3" },
      { b: "2", a: "1" },
      { a: "1" },
      { a: "1", b: "2", c: "3" },
      {},
      {},
      { "2": "x", a: "1" },
    ];
    const statuses = [
      { metadata: {}, code: 200 },
      { metadata: {}, code: 201 },
      { metadata: {}, code: 200 },
      { metadata: {}, status: "Failure", code: 200 },
    ];
    const levels = ["Metadata", "Request", "Metadata"] as const;
    let index = 0;
    for (const annotations of annotationSets) {
      for (const responseStatus of statuses) {
        const level = levels[index++ % levels.length] ?? "Metadata";
        const sample = event({
          stage: "ResponseComplete",
          level,
          apiVersion: index % 4 === 0 ? "audit.k8s.io/v1" : "audit.orch.io/v1",
          annotations: { ...annotations },
          responseStatus,
        });
        assert.equal(new EventJsonEncoder().encode(sample), JSON.stringify(sample));
      }
    }
  });

  it("a request's middle is taken from an earlier request's only when every field it covers has the same value", () => {
    // Each request in its own encoder and with its own strings and objects, as the filter makes them.
    const uri = (suffix = ""): string => `/api/v1/namespaces/default/configmaps/bench-audit-get${suffix}`;
    const variants: Partial<AuditEvent>[] = [
      {},
      { requestURI: uri() },
      { objectRef: { ...objectRef } },
      { objectRef: { ...objectRef, name: "other" } },
      // kube's field order, as the filter builds refs: uid before apiVersion.
      { objectRef: { resource: "configmaps", namespace: "default", name: "bench-audit-get", uid: "u-1", apiVersion: "v1" } },
      { objectRef: { ...objectRef, subresource: "status" } },
      { objectRef: undefined },
      { verb: "watch" },
      { user: { username: "admin" } },
      { impersonatedUser: { username: "bob", groups: ["g"] } },
      { sourceIPs: ["127.0.0.1"] },
      { sourceIPs: ["10.0.0.1"] },
      { sourceIPs: ["10.0.0.1", "127.0.0.1"] },
      { sourceIPs: undefined },
      { userAgent: "kubectl/v1.33.0" },
      { userAgent: undefined },
      { requestURI: uri("?resourceVersion=0") },
      {},
    ];
    const lines = new LogLines();
    // Each variant right after the common request, whose middle is then the one known for its URI.
    for (const round of [1, 2]) {
      for (const fields of variants.flatMap((variant) => [{}, variant])) {
        const sample = event({ ...fields, auditID: `id-${round}` });
        assert.equal(new EventJsonEncoder().encode(sample), JSON.stringify(sample));
        const start = lines.byteLength;
        new EventJsonEncoder().encodeInto(sample, lines);
        assert.equal(lines.view(start, lines.byteLength).toString("utf8"), `${JSON.stringify(sample)}\n`);
      }
    }
  });

  it("quoteJson() matches JSON.stringify for every UTF-16 code unit", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if (quoteJson(text) !== JSON.stringify(text)) assert.fail(`code unit ${code.toString(16)}: ${quoteJson(text)} vs ${JSON.stringify(text)}`);
    }
    assert.equal(quoteJson("😀"), JSON.stringify("😀"));
  });
});
