import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiRequest } from "../request/context.js";
import { unionAuthenticator, type Authenticator, type AuthenticationResult } from "./authenticator.js";
import { bearerToken, bearerWithExtraSpace } from "./bearer-token.js";
import { audienceAgnostic, bearerTokenAuthenticator, unionTokenAuthenticator, type TokenAuthenticator, type TokenResult } from "./token.js";
import { parseTokenFile, tokenFileAuthenticator } from "./token-file.js";

function requestWith(headers: Record<string, string>): ApiRequest {
  return {
    method: "GET",
    path: "/api",
    query: new URLSearchParams(),
    headers,
    body: async () => Buffer.alloc(0),
    peerCertificate: undefined,
    signal: new AbortController().signal,
  };
}

function fixed(name: string, results: Record<string, TokenResult>): TokenAuthenticator {
  return { name, authenticateToken: async (token) => results[token] ?? { kind: "none" } };
}

const alice = { name: "alice", groups: ["devs"] };

describe("bearerToken() (kube's bearer-token authenticator)", () => {
  const cases: [string, string | undefined, string, boolean][] = [
    ["Bearer abc", "abc", "a bearer token", false],
    ["bearer abc", "abc", "any scheme case", false],
    ["  Bearer abc  ", "abc", "blanks around the header", false],
    ["Bearer a b", "a", "words after the token (ignored)", false],
    ["Bearer a\tb", "a\tb", "a tab inside (only spaces split)", false],
    ["Bearer", undefined, "no token", false],
    ["Bearer  abc", undefined, "two spaces: no token, with kube's warning", true],
    ["Bearer   abc", undefined, "three spaces: no token", false],
    ["Basic dXNlcjpwYXNz", undefined, "another scheme", false],
  ];
  for (const [header, token, what, warns] of cases) {
    it(`reads ${what}: ${JSON.stringify(header)}`, () => {
      assert.equal(bearerToken(requestWith({ authorization: header })), token);
      assert.equal(bearerWithExtraSpace(requestWith({ authorization: header })), warns);
    });
  }
  it("is undefined without an Authorization header", () => {
    assert.equal(bearerToken(requestWith({})), undefined);
  });
});

describe("unionTokenAuthenticator()", () => {
  it("tries each in order: the first ok wins, a rejection does not stop the others", async () => {
    const union = unionTokenAuthenticator([
      fixed("a", { t1: { kind: "rejected", reason: "bad" } }),
      fixed("b", { t1: { kind: "ok", user: alice, audiences: [] }, t2: { kind: "rejected", reason: "expired" } }),
    ]);
    assert.equal((await union.authenticateToken("t1", [])).kind, "ok");
    assert.deepEqual(await union.authenticateToken("t2", []), { kind: "rejected", reason: "expired" });
    assert.deepEqual(await union.authenticateToken("t3", []), { kind: "none" });
  });

  it("reports several rejections as kube's error aggregate does: [a, b]", async () => {
    const union = unionTokenAuthenticator([fixed("a", { t: { kind: "rejected", reason: "bad" } }), fixed("b", { t: { kind: "rejected", reason: "expired" } })]);
    assert.deepEqual(await union.authenticateToken("t", []), { kind: "rejected", reason: "[bad, expired]" });
  });
});

describe("audienceAgnostic()", () => {
  const inner = fixed("static", { good: { kind: "ok", user: alice, audiences: [] } });
  const wrapped = audienceAgnostic(["https://api"], inner);
  it("accepts for the API's audiences and reports them", async () => {
    assert.deepEqual(await wrapped.authenticateToken("good", ["https://api", "other"]), { kind: "ok", user: alice, audiences: ["https://api"] });
  });
  it("has no opinion when other audiences are wanted", async () => {
    assert.deepEqual(await wrapped.authenticateToken("good", ["https://vault"]), { kind: "none" });
  });
});

describe("bearerTokenAuthenticator()", () => {
  const tokens = fixed("static", { good: { kind: "ok", user: alice, audiences: [] }, expired: { kind: "rejected", reason: "expired" } });
  const authenticator = bearerTokenAuthenticator(tokens, ["https://api"]);
  const cases: [Record<string, string>, AuthenticationResult["kind"]][] = [
    [{ authorization: "Bearer good" }, "ok"],
    [{ authorization: "Bearer expired" }, "rejected"],
    [{ authorization: "Bearer unknown" }, "rejected"],
    [{ authorization: "Basic abc" }, "none"],
    [{ authorization: "Bearer" }, "none"],
    [{ authorization: "Bearer good trailing" }, "ok"],
    [{}, "none"],
  ];
  for (const [headers, kind] of cases) {
    it(`${JSON.stringify(headers)} is ${kind}`, async () => {
      assert.equal((await authenticator.authenticate(requestWith(headers))).kind, kind);
    });
  }
});

describe("unionAuthenticator()", () => {
  const of = (name: string, result: AuthenticationResult): Authenticator => ({ name, authenticate: async () => result });
  it("lets a later authenticator accept what an earlier one rejected", async () => {
    const union = unionAuthenticator([of("x509", { kind: "rejected", reason: "unknown CA" }), of("token", { kind: "ok", user: alice })]);
    assert.deepEqual(await union.authenticate(requestWith({})), { kind: "ok", user: alice });
  });
  it("is rejected when one rejected and none accepted, none when nobody found a credential", async () => {
    assert.equal(
      (await unionAuthenticator([of("a", { kind: "rejected", reason: "r" }), of("b", { kind: "none" })]).authenticate(requestWith({}))).kind,
      "rejected",
    );
    assert.equal((await unionAuthenticator([of("a", { kind: "none" })]).authenticate(requestWith({}))).kind, "none");
  });
});

describe("tokenFileAuthenticator()", () => {
  it("finds users by token and follows a replaced token map", async () => {
    let tokens = parseTokenFile('t-1,alice,uid-1,"devs,ops"\n# comment\n\nt-2,bob,uid-2\n');
    const authenticator = tokenFileAuthenticator(() => tokens);
    assert.deepEqual(await authenticator.authenticateToken("t-1", []), {
      kind: "ok",
      user: { name: "alice", uid: "uid-1", groups: ["devs", "ops"] },
      audiences: [],
    });
    assert.deepEqual(await authenticator.authenticateToken("t-3", []), { kind: "none" });
    tokens = parseTokenFile("t-3,carol,uid-3\n");
    assert.equal((await authenticator.authenticateToken("t-3", [])).kind, "ok");
    assert.equal((await authenticator.authenticateToken("t-1", [])).kind, "none");
  });
  it("refuses malformed lines with their number", () => {
    assert.throws(() => parseTokenFile("ok,alice,1\nbroken\n"), /line 2/);
  });
});
