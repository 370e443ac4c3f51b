import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { WebhookClient, WebhookResponse } from "../../auth/webhook-client.js";
import type { Attributes } from "../authorizer.js";
import { subjectAccessReviewSpec, webhookAuthorizer } from "./webhook-authorizer.js";

const USER = { name: "jane", uid: "u1", groups: ["devs", "system:authenticated"], extra: { scopes: ["a"] } };
const GET_POD: Attributes = { kind: "resource", verb: "get", group: "", version: "v1", namespace: "ns", resource: "pods", subresource: "log", name: "p" };

function fakeClient(answer: (body: unknown) => WebhookResponse | Error): WebhookClient & { bodies: unknown[] } {
  const bodies: unknown[] = [];
  return {
    bodies,
    async post(body) {
      bodies.push(body);
      const result = answer(body);
      if (result instanceof Error) throw result;
      return result;
    },
    close() {},
  };
}

describe("webhookAuthorizer()", () => {
  it("sends kube's SubjectAccessReview spec: groups as `group` in v1beta1 and `groups` in v1", () => {
    assert.deepEqual(subjectAccessReviewSpec(USER, GET_POD, "v1beta1"), {
      resourceAttributes: { namespace: "ns", verb: "get", group: "", version: "v1", resource: "pods", subresource: "log", name: "p" },
      user: "jane",
      uid: "u1",
      group: ["devs", "system:authenticated"],
      extra: { scopes: ["a"] },
    });
    assert.deepEqual(subjectAccessReviewSpec({ name: "x", groups: [] }, { kind: "non-resource", verb: "get", path: "/healthz" }, "v1"), {
      nonResourceAttributes: { path: "/healthz", verb: "get" },
      user: "x",
      groups: [],
    });
  });

  const answers: readonly [string, Record<string, unknown>, string][] = [
    ["follows allowed: true", { allowed: true }, "allow"],
    ["follows denied: true", { allowed: false, denied: true, reason: "no way" }, "deny"],
    ["has no opinion when neither is set", { allowed: false }, "no-opinion"],
  ];
  for (const [name, status, kind] of answers) {
    it(name, async () => {
      const client = fakeClient(() => ({ status: 200, body: { apiVersion: "authorization.example.io/v1", kind: "SubjectAccessReview", status } }));
      const authorizer = webhookAuthorizer({ client, group: "authorization.example.io", version: "v1", authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
      const decision = await authorizer.authorize(USER, GET_POD);
      assert.equal(decision.kind, kind);
      assert.deepEqual(client.bodies[0], {
        apiVersion: "authorization.example.io/v1",
        kind: "SubjectAccessReview",
        spec: subjectAccessReviewSpec(USER, GET_POD, "v1"),
      });
    });
  }

  it("caches allows for the authorized TTL and the rest for the unauthorized TTL", async () => {
    let now = 0;
    let allowed = true;
    const client = fakeClient(() => ({ status: 200, body: { status: { allowed } } }));
    const authorizer = webhookAuthorizer({ client, group: "g", version: "v1", authorizedTtlMs: 1000, unauthorizedTtlMs: 100, now: () => now });
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "allow");
    allowed = false;
    now = 999;
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "allow", "cached allow");
    assert.equal(client.bodies.length, 1);
    now = 1000;
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "no-opinion", "expired");
    allowed = true;
    now = 1099;
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "no-opinion", "cached refusal");
    now = 1100;
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "allow");
    assert.equal(client.bodies.length, 3);
    assert.equal((await authorizer.authorize({ ...USER, name: "other" }, GET_POD)).kind, "allow");
    assert.equal(client.bodies.length, 4, "another user is another cache entry");
  });

  it("has no opinion, uncached, when the remote fails or answers an error status", async () => {
    let fail: WebhookResponse | Error = new Error("connection refused");
    const errors: unknown[] = [];
    const client = fakeClient(() => fail);
    const authorizer = webhookAuthorizer({
      client,
      group: "g",
      version: "v1",
      authorizedTtlMs: 60_000,
      unauthorizedTtlMs: 60_000,
      onError: (error) => errors.push(error),
    });
    const first = await authorizer.authorize(USER, GET_POD);
    assert.equal(first.kind, "no-opinion");
    assert.match(first.reason, /connection refused/);
    fail = { status: 500, body: undefined };
    assert.match((await authorizer.authorize(USER, GET_POD)).reason, /HTTP 500/);
    fail = { status: 200, body: { status: { allowed: true } } };
    assert.equal((await authorizer.authorize(USER, GET_POD)).kind, "allow");
    assert.equal(errors.length, 2);
  });
});
