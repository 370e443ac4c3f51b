import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WebhookClient, WebhookResponse } from "./webhook-client.js";
import { tokenReviewVerdict, webhookTokenAuthenticator } from "./webhook-token.js";

const GROUP = "authentication.orch.io";
const API = ["https://api"];

describe("tokenReviewVerdict()", () => {
  const cases: [string, unknown, string][] = [
    [
      "authenticated with a user",
      {
        apiVersion: `${GROUP}/v1`,
        kind: "TokenReview",
        status: { authenticated: true, user: { username: "jane", uid: "42", groups: ["devs"], extra: { scopes: ["a"] } } },
      },
      "ok",
    ],
    ["not authenticated", { status: { authenticated: false } }, "rejected"],
    ["an error", { status: { error: "backend down" } }, "rejected"],
    ["no status", { spec: { token: "x" } }, "rejected"],
    ["another group", { apiVersion: "other.io/v1", status: { authenticated: true, user: { username: "jane" } } }, "rejected"],
    ["no username", { status: { authenticated: true, user: {} } }, "rejected"],
    ["audiences that do not match", { status: { authenticated: true, user: { username: "jane" }, audiences: ["https://vault"] } }, "rejected"],
    ["not JSON", undefined, "rejected"],
  ];
  for (const [what, body, kind] of cases) {
    it(`${what} is ${kind}`, () => {
      assert.equal(tokenReviewVerdict(body, GROUP, API, API).kind, kind);
    });
  }

  it("reads the user from status and ignores a reply's spec", () => {
    const verdict = tokenReviewVerdict(
      { spec: { token: "other" }, status: { authenticated: true, user: { username: "jane", uid: "42", groups: ["devs"], extra: { scopes: ["a", "b"] } } } },
      GROUP,
      API,
      API,
    );
    assert.deepEqual(verdict, { kind: "ok", user: { name: "jane", uid: "42", groups: ["devs"], extra: { scopes: ["a", "b"] } }, audiences: API });
  });
});

function fakeClient(replies: (body: unknown) => WebhookResponse | Error): WebhookClient & { bodies: unknown[] } {
  const bodies: unknown[] = [];
  return {
    bodies,
    async post(body) {
      bodies.push(body);
      const reply = replies(body);
      if (reply instanceof Error) throw reply;
      return reply;
    },
    close() {},
  };
}

describe("webhookTokenAuthenticator()", () => {
  it("posts a TokenReview of the configured version and caches answers for the TTL", async () => {
    let now = 1_000_000;
    const client = fakeClient(() => ({ status: 200, body: { status: { authenticated: true, user: { username: "jane" } } } }));
    const authenticator = webhookTokenAuthenticator({ client, group: GROUP, version: "v1beta1", apiAudiences: API, cacheTtlMs: 60_000, now: () => now });
    assert.equal((await authenticator.authenticateToken("secret-token", API)).kind, "ok");
    assert.equal((await authenticator.authenticateToken("secret-token", API)).kind, "ok");
    assert.deepEqual(client.bodies, [{ apiVersion: `${GROUP}/v1beta1`, kind: "TokenReview", spec: { token: "secret-token", audiences: API } }]);
    now += 60_001;
    await authenticator.authenticateToken("secret-token", API);
    assert.equal(client.bodies.length, 2);
  });

  it("treats transport errors and non-2xx replies as not authenticated, without caching them", async () => {
    let reply: WebhookResponse | Error = new Error("connect ECONNREFUSED");
    const client = fakeClient(() => reply);
    const authenticator = webhookTokenAuthenticator({ client, group: GROUP, version: "v1", apiAudiences: API, cacheTtlMs: 60_000 });
    assert.equal((await authenticator.authenticateToken("t", API)).kind, "rejected");
    reply = { status: 500, body: { status: { authenticated: true, user: { username: "jane" } } } };
    assert.equal((await authenticator.authenticateToken("t", API)).kind, "rejected");
    reply = { status: 200, body: { status: { authenticated: true, user: { username: "jane" } } } };
    assert.equal((await authenticator.authenticateToken("t", API)).kind, "ok");
    assert.equal(client.bodies.length, 3);
  });
});
