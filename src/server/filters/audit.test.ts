import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import type { AuditBackend, AuditEvent } from "../audit/event.js";
import { parseAuditPolicy } from "../audit/policy.js";
import { logBackend } from "../audit/log-backend.js";
import { encodeEvent } from "../audit/event-json.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import { protobufCodec, protobufMediaTypes } from "../../codec/protobuf/codec.js";
import { parseRequestInfo } from "../../request/request-info.js";
import type { RequestContext, UserInfo } from "../../request/context.js";
import { auditFilter } from "./audit.js";

/** Keeps every event it is given. */
function memoryBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { name: "memory", events, processEvents: (batch) => void events.push(...batch), shutdown: async () => {} };
}

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*"]
  - level: None
    users: ["bob"]
  - level: RequestResponse
    resources: [{ group: "", resources: ["secrets"] }]
    omitStages: ["RequestReceived"]
  - level: Request
    resources: [{ group: "", resources: ["configmaps"], resourceNames: [] }]
    namespaces: ["team"]
  - level: Metadata
`;

describe("auditFilter() through the whole pipeline", () => {
  const backend = memoryBackend();
  let server: Awaited<ReturnType<typeof inProcessServer>>;
  before(async () => {
    server = await inProcessServer({
      audit: { policy: parseAuditPolicy(POLICY, "audit.orch.io"), backend, apiVersion: "audit.orch.io/v1" },
      admission: { enable: ["PodSecurity"] },
    });
    assert.equal((await server.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "team" } } })).status, 201);
  });
  after(() => server.stop());

  /** The events of the request answered with `auditId`. */
  function eventsOf(auditId: unknown): AuditEvent[] {
    assert.equal(typeof auditId, "string");
    return backend.events.filter((event) => event.auditID === auditId);
  }

  it("Metadata: RequestReceived then ResponseComplete, the Audit-ID header, user, objectRef, status and the authorizer's annotations", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default/pods/missing", { as: "alice", headers: { "user-agent": "tests/1.0" } });
    assert.equal(response.status, 403);
    const events = eventsOf(response.headers["audit-id"]);
    assert.deepEqual(
      events.map((event) => event.stage),
      ["RequestReceived", "ResponseComplete"],
    );
    const complete = events[1];
    assert.ok(complete !== undefined);
    assert.equal(complete.kind, "Event");
    assert.equal(complete.apiVersion, "audit.orch.io/v1");
    assert.equal(complete.level, "Metadata");
    assert.equal(complete.verb, "get");
    assert.equal(complete.requestURI, "/api/v1/namespaces/default/pods/missing");
    assert.equal(complete.userAgent, "tests/1.0");
    assert.deepEqual(complete.user, { username: "alice", groups: ["developers", "system:authenticated"] });
    assert.deepEqual(complete.objectRef, { resource: "pods", namespace: "default", name: "missing", apiVersion: "v1" });
    assert.equal(complete.responseStatus?.code, 403);
    assert.equal(complete.responseStatus?.reason, "Forbidden");
    assert.equal(complete.annotations?.["authorization.orch.io/decision"], "forbid");
    assert.equal(complete.requestObject, undefined);
    assert.equal(complete.responseObject, undefined);
    assert.match(complete.stageTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("keeps the client's Audit-ID", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default", { headers: { "audit-id": "given-id-1" } });
    assert.equal(response.headers["audit-id"], "given-id-1");
    assert.equal(eventsOf("given-id-1").length, 2);
  });

  it("Request: the request object, the name of a create, and no response object", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/team/configmaps", { body: { metadata: { name: "settings" }, data: { a: "1" } } });
    assert.equal(response.status, 201);
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.equal(complete?.level, "Request");
    assert.equal(complete?.objectRef?.name, "settings");
    assert.deepEqual(complete?.requestObject, { metadata: { name: "settings" }, data: { a: "1" } });
    assert.equal(complete?.responseObject, undefined);
    assert.equal(complete?.annotations?.["authorization.orch.io/decision"], "allow");
  });

  it("Request: a delete's DeleteOptions are its request object; a delete without a body has none", async () => {
    for (const name of ["gone", "gone2"]) {
      assert.equal((await server.call("POST", "/api/v1/namespaces/team/configmaps", { body: { metadata: { name } } })).status, 201);
    }
    const options = { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" };
    const response = await server.call("DELETE", "/api/v1/namespaces/team/configmaps/gone", { body: options });
    assert.equal(response.status, 200);
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.equal(complete?.level, "Request");
    assert.deepEqual(complete?.objectRef, { resource: "configmaps", namespace: "team", name: "gone", apiVersion: "v1" });
    assert.deepEqual(complete?.requestObject, options);
    const bare = await server.call("DELETE", "/api/v1/namespaces/team/configmaps/gone2");
    assert.equal(bare.status, 200);
    assert.equal(eventsOf(bare.headers["audit-id"]).find((event) => event.stage === "ResponseComplete")?.requestObject, undefined);
  });

  it("RequestResponse: the response object too; omitStages drops RequestReceived", async () => {
    const response = await server.call("POST", "/api/v1/namespaces/team/secrets", { body: { metadata: { name: "token" }, stringData: { t: "x" } } });
    assert.equal(response.status, 201);
    const events = eventsOf(response.headers["audit-id"]);
    assert.deepEqual(
      events.map((event) => event.stage),
      ["ResponseComplete"],
    );
    const object = events[0]?.responseObject as { metadata?: { name?: string; uid?: string } } | undefined;
    assert.equal(object?.metadata?.name, "token");
    assert.equal(typeof object?.metadata?.uid, "string");
  });

  it("protobuf bodies are recorded as JSON objects, and name a create's objectRef", async () => {
    const [mediaType] = protobufMediaTypes(ORCH_PROFILE);
    assert.ok(mediaType !== undefined);
    const body = protobufCodec(ORCH_PROFILE).encode({ apiVersion: "v1", kind: "Secret", metadata: { name: "proto" }, stringData: { t: "x" } });
    const response = await server.call("POST", "/api/v1/namespaces/team/secrets", { body, headers: { "content-type": mediaType, accept: mediaType } });
    assert.equal(response.status, 201);
    assert.equal(response.headers["content-type"], mediaType);
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.equal(complete?.objectRef?.name, "proto");
    const sent = complete?.requestObject as { kind?: string; metadata?: { name?: string }; stringData?: unknown } | undefined;
    assert.equal(sent?.kind, "Secret");
    assert.equal(sent?.metadata?.name, "proto");
    assert.deepEqual(sent?.stringData, { t: "x" });
    const answered = complete?.responseObject as { kind?: string; metadata?: { name?: string; uid?: string } } | undefined;
    assert.equal(answered?.kind, "Secret");
    assert.equal(answered?.metadata?.name, "proto");
    assert.equal(typeof answered?.metadata?.uid, "string");
  });

  it("YAML bodies (a create, a server-side apply) are recorded as JSON objects and name a create's objectRef", async () => {
    const created = await server.call("POST", "/api/v1/namespaces/team/secrets", {
      body: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: yaml\nstringData:\n  t: x\n",
      headers: { "content-type": "application/yaml" },
    });
    assert.equal(created.status, 201);
    const complete = eventsOf(created.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.equal(complete?.objectRef?.name, "yaml");
    assert.deepEqual(complete?.requestObject, { apiVersion: "v1", kind: "Secret", metadata: { name: "yaml" }, stringData: { t: "x" } });
    const applied = await server.call("PATCH", "/api/v1/namespaces/team/secrets/yaml?fieldManager=tests&force=true", {
      body: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: yaml\nstringData:\n  t: y\n",
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    assert.equal(applied.status, 200);
    const patched = eventsOf(applied.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.deepEqual(patched?.requestObject, { apiVersion: "v1", kind: "Secret", metadata: { name: "yaml" }, stringData: { t: "y" } });
  });

  it("a streamed list is recorded when it has been sent", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/team/secrets");
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    const list = complete?.responseObject as { kind?: string; items?: unknown[] } | undefined;
    assert.equal(list?.kind, "SecretList");
    // `token`, then `proto` and `yaml` from the protobuf and YAML tests.
    assert.equal(list?.items?.length, 3);
  });

  it("None: by user and by non-resource URL, yet the Audit-ID header is sent", async () => {
    const healthz = await server.call("GET", "/healthz");
    assert.equal(eventsOf(healthz.headers["audit-id"]).length, 0);
    const bob = await server.call("GET", "/api/v1/namespaces", { as: "bob" });
    assert.equal(eventsOf(bob.headers["audit-id"]).length, 0);
  });

  it("a watch has ResponseStarted, then ResponseComplete when it ends", async () => {
    const controller = new AbortController();
    const response = await server.raw("GET", "/api/v1/namespaces/default/configmaps?watch=true", { signal: controller.signal });
    const id = response.headers["audit-id"];
    assert.deepEqual(
      eventsOf(id).map((event) => event.stage),
      ["RequestReceived", "ResponseStarted"],
    );
    const reading = (async () => {
      if (typeof response.body === "string" || response.body instanceof Uint8Array) return;
      for await (const _chunk of response.body);
    })();
    controller.abort();
    await reading;
    assert.deepEqual(
      eventsOf(id).map((event) => event.stage),
      ["RequestReceived", "ResponseStarted", "ResponseComplete"],
    );
  });

  it("impersonation: the authenticated user, and the impersonated one", async () => {
    const response = await server.call("GET", "/api/v1/namespaces/default", { headers: { "impersonate-user": "carol" } });
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.equal(complete?.user.username, "admin");
    assert.equal(complete?.impersonatedUser?.username, "carol");
  });

  it("a failed authentication (401): one ResponseStarted event, user {}, the credentials tried; rules naming users pass it by", async () => {
    const bad = await server.call("GET", "/api/v1/namespaces/team/configmaps?limit=1", {
      as: "anonymous",
      headers: { authorization: "Bearer nope", "user-agent": "tests/1.0" },
    });
    assert.equal(bad.status, 401);
    const events = eventsOf(bad.headers["audit-id"]);
    assert.equal(events.length, 1);
    const event = events[0];
    assert.ok(event !== undefined);
    assert.equal(event.stage, "ResponseStarted");
    // The team/configmaps rule is Request, but it names no user: the failed request falls to it like anyone's.
    assert.equal(event.level, "Request");
    assert.equal(event.verb, "list");
    assert.equal(event.requestURI, "/api/v1/namespaces/team/configmaps?limit=1");
    assert.deepEqual(event.objectRef, { resource: "configmaps", namespace: "team", apiVersion: "v1" });
    assert.deepEqual(event.responseStatus, { metadata: {}, message: "Authentication failed, attempted: bearer", code: 401 });
    assert.equal(event.userAgent, "tests/1.0");
    assert.match(
      encodeEvent(event),
      /"stage":"ResponseStarted","requestURI":"[^"]+","verb":"list","user":\{\},"sourceIPs"|"verb":"list","user":\{\},"userAgent"/,
    );
    assert.equal(event.requestReceivedTimestamp, event.stageTimestamp);
  });

  it("collects admission plugins' annotations (PodSecurity's audit mode)", async () => {
    const label = await server.call("PATCH", "/api/v1/namespaces/team", {
      body: { metadata: { labels: { "pod-security.orch.io/audit": "restricted" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    assert.equal(label.status, 200);
    const response = await server.call("POST", "/api/v1/namespaces/team/pods", {
      body: { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    assert.equal(response.status, 201);
    const complete = eventsOf(response.headers["audit-id"]).find((event) => event.stage === "ResponseComplete");
    assert.match(complete?.annotations?.["pod-security.orch.io/audit-violations"] ?? "", /would violate PodSecurity "restricted:latest"/);
    assert.equal(complete?.annotations?.["pod-security.orch.io/enforce-policy"], "privileged:latest", "kube records the enforce policy of every judged pod");
  });
});

describe("--audit-log-mode=blocking-strict through the pipeline", () => {
  it("a request whose RequestReceived event cannot be written fails with kube's 500; blocking only reports it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "audit-strict-"));
    const blocker = join(directory, "file");
    writeFileSync(blocker, "");
    const policy = parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n", "audit.orch.io");
    const failed: number[] = [];
    for (const mode of ["blocking-strict", "blocking"] as const) {
      const backend = logBackend({ path: join(blocker, "audit.log"), mode, onError: (_error, dropped) => failed.push(dropped) });
      const server = await inProcessServer({ audit: { policy, backend, apiVersion: "audit.orch.io/v1" } });
      try {
        const response = await server.call("GET", "/api/v1/namespaces/default");
        if (mode === "blocking-strict") {
          assert.equal(response.status, 500);
          assert.equal(response.json["message"], "Internal error occurred: failed to store audit event");
        } else {
          assert.equal(response.status, 200);
        }
      } finally {
        await server.stop();
        await backend.shutdown();
      }
    }
    assert.ok(failed.length >= 2, "both modes report the failed writes");
    rmSync(directory, { recursive: true, force: true });
  });
});

describe("the log file's bytes through the pipeline", () => {
  it("a Metadata GET: two lines, byte for byte as kube writes them (fields in kube's order, UTF-8)", async () => {
    const directory = mkdtempSync(join(tmpdir(), "audit-bytes-"));
    const path = join(directory, "audit.log");
    const policy = parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n", "audit.orch.io");
    const backend = logBackend({ path });
    let clock = Date.parse("2026-11-27T10:26:00.555Z");
    const server = await inProcessServer({ audit: { policy, backend, apiVersion: "audit.orch.io/v1", now: () => (clock += 1) } });
    try {
      const headers = { "audit-id": "pinned-ü-1", "user-agent": "pin/1.0 (é)" };
      assert.equal((await server.call("GET", "/api/v1/namespaces/default/configmaps/missing?limit=5", { headers })).status, 404);
      await backend.shutdown();
      const head =
        '{"kind":"Event","apiVersion":"audit.orch.io/v1","level":"Metadata","auditID":"pinned-ü-1","stage":"%STAGE%",' +
        '"requestURI":"/api/v1/namespaces/default/configmaps/missing?limit=5","verb":"get",' +
        '"user":{"username":"admin","groups":["system:masters","system:authenticated"]},"userAgent":"pin/1.0 (é)",' +
        '"objectRef":{"resource":"configmaps","namespace":"default","name":"missing","apiVersion":"v1"}';
      const expected =
        `${head.replace("%STAGE%", "RequestReceived")},"requestReceivedTimestamp":"2026-11-27T10:26:00.556000Z","stageTimestamp":"2026-11-27T10:26:00.557000Z"}\n` +
        `${head.replace("%STAGE%", "ResponseComplete")},"responseStatus":{"metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","code":404},` +
        '"requestReceivedTimestamp":"2026-11-27T10:26:00.556000Z","stageTimestamp":"2026-11-27T10:26:00.558000Z",' +
        '"annotations":{"authorization.orch.io/decision":"allow","authorization.orch.io/reason":"RBAC: allowed by ClusterRoleBinding \\"cluster-admin\\" of ClusterRole \\"cluster-admin\\" to Group \\"system:masters\\""}}\n';
      assert.equal(readFileSync(path, "utf8"), expected);
      assert.deepEqual(readFileSync(path), Buffer.from(expected, "utf8"));
    } finally {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("auditFilter() users", () => {
  it("a user's requests share one audited user only while name, uid, groups and extra stay the same", async () => {
    const backend = memoryBackend();
    const policy = parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n", "audit.orch.io");
    const handler = auditFilter({ policy, backend, apiVersion: "audit.orch.io/v1" })(async () => ({ status: 200, headers: {}, body: "" }));
    const call = async (user: UserInfo): Promise<AuditEvent | undefined> => {
      const query = new URLSearchParams();
      const context: RequestContext = {
        request: {
          method: "GET",
          path: "/api/v1/namespaces",
          query,
          headers: {},
          body: async () => Buffer.alloc(0),
          peerCertificate: undefined,
          signal: new AbortController().signal,
        },
        info: parseRequestInfo("GET", "/api/v1/namespaces", query),
        user,
        warnings: [],
      };
      await handler(context);
      return backend.events.at(-1);
    };
    const extra = { scopes: ["a"] };
    const first = await call({ name: "carol", uid: "1", groups: ["g1", "g2"], extra });
    const again = await call({ name: "carol", uid: "1", groups: ["g1", "g2"], extra });
    assert.deepEqual(first?.user, { username: "carol", uid: "1", groups: ["g1", "g2"], extra });
    assert.equal(again?.user, first?.user, "the same user: the same audited object");
    const changes: UserInfo[] = [
      { name: "carol", uid: "1", groups: ["g1"], extra },
      { name: "carol", uid: "1", groups: ["g2", "g1"], extra },
      { name: "carol", uid: "2", groups: ["g1", "g2"], extra },
      { name: "carol", uid: "1", groups: ["g1", "g2"], extra: { scopes: ["b"] } },
      { name: "carol", groups: [] },
    ];
    for (const user of changes) {
      const audited = (await call(user))?.user;
      const expected: Record<string, unknown> = { username: user.name };
      if (user.uid !== undefined) expected["uid"] = user.uid;
      if (user.groups.length > 0) expected["groups"] = user.groups;
      if (user.extra !== undefined) expected["extra"] = user.extra;
      assert.deepEqual(audited, expected);
    }
    // A caller changing its groups array afterwards does not change what was audited.
    const groups = ["g9"];
    const mutable = await call({ name: "dave", groups });
    groups.push("late");
    assert.deepEqual(mutable?.user.groups, ["g9"]);
    assert.deepEqual((await call({ name: "dave", groups }))?.user.groups, ["g9", "late"]);
  });
});
