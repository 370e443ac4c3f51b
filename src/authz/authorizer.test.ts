import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, unionAuthorizer, type Attributes, type Authorizer, type Decision } from "./authorizer.js";
import { AuthorizationConfigError, DEFAULT_AUTHORIZATION, parseAuthorizationModes, validateAuthorizationConfig } from "./modes.js";

const USER = { name: "jane", groups: ["system:authenticated"] };
const GET_PODS: Attributes = { kind: "resource", verb: "get", group: "", namespace: "ns", resource: "pods", subresource: "", name: "p" };

/** An authorizer that answers `kind` and records that it was asked. */
function fixed(name: string, kind: Decision["kind"], asked: string[]): Authorizer {
  return {
    name,
    async authorize() {
      asked.push(name);
      return { kind, reason: `${name} says ${kind}` };
    },
  };
}

interface UnionCase {
  readonly name: string;
  readonly answers: readonly Decision["kind"][];
  readonly decision: Decision["kind"];
  readonly asked: number;
  readonly reason: string;
}

const UNION: readonly UnionCase[] = [
  { name: "abstains when there are no authorizers (the caller's default is deny)", answers: [], decision: "no-opinion", asked: 0, reason: "" },
  {
    name: "abstains when every authorizer abstains, with their reasons",
    answers: ["no-opinion", "no-opinion"],
    decision: "no-opinion",
    asked: 2,
    reason: "a0 says no-opinion, a1 says no-opinion",
  },
  { name: "takes the first allow and asks no further", answers: ["allow", "deny"], decision: "allow", asked: 1, reason: "a0 says allow" },
  { name: "takes the first deny and asks no further", answers: ["deny", "allow"], decision: "deny", asked: 1, reason: "a0 says deny" },
  { name: "falls through abstentions to an allow", answers: ["no-opinion", "allow", "deny"], decision: "allow", asked: 2, reason: "a1 says allow" },
  { name: "falls through abstentions to a deny", answers: ["no-opinion", "deny", "allow"], decision: "deny", asked: 2, reason: "a1 says deny" },
];

describe("unionAuthorizer()", () => {
  for (const entry of UNION) {
    it(entry.name, async () => {
      const asked: string[] = [];
      const union = unionAuthorizer(entry.answers.map((kind, index) => fixed(`a${index}`, kind, asked)));
      const decision = await union.authorize(USER, GET_PODS);
      assert.equal(decision.kind, entry.decision);
      assert.equal(decision.reason, entry.reason);
      assert.equal(asked.length, entry.asked);
    });
  }

  it("AlwaysAllow allows and AlwaysDeny denies anything", async () => {
    const path: Attributes = { kind: "non-resource", verb: "get", path: "/x" };
    for (const attributes of [GET_PODS, path]) {
      assert.equal((await alwaysAllowAuthorizer().authorize(USER, attributes)).kind, "allow");
      assert.equal((await alwaysDenyAuthorizer().authorize(USER, attributes)).kind, "deny");
    }
    assert.equal((await unionAuthorizer([alwaysDenyAuthorizer(), alwaysAllowAuthorizer()]).authorize(USER, GET_PODS)).kind, "deny");
    assert.equal((await unionAuthorizer([alwaysAllowAuthorizer(), alwaysDenyAuthorizer()]).authorize(USER, GET_PODS)).kind, "allow");
  });
});

describe("parseAuthorizationModes() and validateAuthorizationConfig()", () => {
  const parses: readonly [string, readonly string[]][] = [
    ["Node,RBAC", ["Node", "RBAC"]],
    ["RBAC", ["RBAC"]],
    ["AlwaysAllow", ["AlwaysAllow"]],
    ["ABAC, Webhook ,AlwaysDeny", ["ABAC", "Webhook", "AlwaysDeny"]],
  ];
  for (const [text, modes] of parses) {
    it(`reads "${text}" in order`, () => assert.deepEqual(parseAuthorizationModes(text), modes));
  }
  const refuses: readonly [string, RegExp][] = [
    ["rbac", /not a valid mode/],
    ["RBAC,RBAC", /already been specified/],
    ["", /not a valid mode/],
    ["Node,,RBAC", /not a valid mode/],
  ];
  for (const [text, message] of refuses) {
    it(`refuses "${text}"`, () =>
      assert.throws(
        () => parseAuthorizationModes(text),
        (error: unknown) => error instanceof AuthorizationConfigError && message.test(error.message),
      ));
  }

  it("defaults to Node,RBAC", () => assert.deepEqual(DEFAULT_AUTHORIZATION.modes, ["Node", "RBAC"]));

  it("needs the ABAC policy file and the webhook config with their modes, and not without", () => {
    const base = DEFAULT_AUTHORIZATION;
    assert.throws(() => validateAuthorizationConfig({ ...base, modes: ["ABAC"] }), /policy file not passed/);
    assert.throws(() => validateAuthorizationConfig({ ...base, modes: ["RBAC"], policyFile: "/p" }), /without mode ABAC/);
    assert.throws(() => validateAuthorizationConfig({ ...base, modes: ["Webhook"] }), /config file not passed/);
    assert.throws(() => validateAuthorizationConfig({ ...base, modes: ["RBAC"], webhookConfigFile: "/w" }), /without mode Webhook/);
    assert.throws(() => validateAuthorizationConfig({ ...base, modes: [] }), /at least one/);
    validateAuthorizationConfig({ ...base, modes: ["ABAC", "Webhook"], policyFile: "/p", webhookConfigFile: "/w" });
  });
});
