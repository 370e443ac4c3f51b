import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Attributes } from "../authorizer.js";
import { abacAuthorizer, abacRules, AbacPolicyError, parseAbacPolicies } from "./abac-authorizer.js";

const V1 = "abac.authorization.example.io/v1beta1";
const line = (spec: Record<string, unknown>): string => JSON.stringify({ apiVersion: V1, kind: "Policy", spec });

const POLICY = [
  "# comments and blank lines are skipped",
  "",
  line({ user: "alice", namespace: "*", resource: "*", apiGroup: "*" }),
  line({ user: "bob", namespace: "projectCaribou", resource: "pods", apiGroup: "", readonly: true }),
  line({ group: "ops", nonResourcePath: "/logs/*", readonly: true }),
  line({ user: "*", nonResourcePath: "/version" }),
  line({ group: "system:unauthenticated", nonResourcePath: "/healthz", readonly: true }),
  JSON.stringify({ user: "legacy", resource: "events" }),
  JSON.stringify({ user: "everything" }),
].join("\n");

const resource = (verb: string, name: string, namespace: string, group = ""): Attributes => ({
  kind: "resource",
  verb,
  group,
  namespace,
  resource: name,
  subresource: "",
  name: "",
});
const path = (verb: string, url: string): Attributes => ({ kind: "non-resource", verb, path: url });

const CASES: readonly { name: string; user: { name: string; groups: string[] }; request: Attributes; allowed: boolean }[] = [
  {
    name: "a user policy with wildcards allows that user anything on resources",
    user: { name: "alice", groups: [] },
    request: resource("delete", "deployments", "x", "apps"),
    allowed: true,
  },
  {
    name: "a user policy does not match another user",
    user: { name: "carol", groups: ["system:authenticated"] },
    request: resource("get", "pods", "projectCaribou"),
    allowed: false,
  },
  { name: "readonly allows get, list and watch", user: { name: "bob", groups: [] }, request: resource("watch", "pods", "projectCaribou"), allowed: true },
  { name: "readonly refuses writes", user: { name: "bob", groups: [] }, request: resource("create", "pods", "projectCaribou"), allowed: false },
  { name: "the namespace must match", user: { name: "bob", groups: [] }, request: resource("get", "pods", "other"), allowed: false },
  {
    name: 'apiGroup "" matches only the core group',
    user: { name: "bob", groups: [] },
    request: resource("get", "pods", "projectCaribou", "apps"),
    allowed: false,
  },
  { name: "a group policy matches members", user: { name: "dan", groups: ["ops"] }, request: path("get", "/logs/kubelet"), allowed: true },
  { name: "a non-resource policy never matches resources", user: { name: "dan", groups: ["ops"] }, request: resource("get", "pods", "x"), allowed: false },
  { name: "user * means every authenticated user", user: { name: "erin", groups: ["system:authenticated"] }, request: path("post", "/version"), allowed: true },
  {
    name: "user * does not cover the anonymous user",
    user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
    request: path("get", "/version"),
    allowed: false,
  },
  {
    name: "anonymous access needs an explicit group policy",
    user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
    request: path("get", "/healthz"),
    allowed: true,
  },
  {
    name: "a legacy line is read with every group and namespace",
    user: { name: "legacy", groups: [] },
    request: resource("create", "events", "x", "events.example"),
    allowed: true,
  },
  { name: "a legacy line with a resource does not give paths", user: { name: "legacy", groups: [] }, request: path("get", "/version"), allowed: false },
  {
    name: "a legacy line without resource or namespace gives paths",
    user: { name: "everything", groups: [] },
    request: path("get", "/anything"),
    allowed: true,
  },
];

describe("ABAC", () => {
  const policies = parseAbacPolicies(POLICY, "example.io");
  const authorizer = abacAuthorizer(policies);
  for (const entry of CASES) {
    it(entry.name, async () => {
      const decision = await authorizer.authorize(entry.user, entry.request);
      assert.equal(decision.kind, entry.allowed ? "allow" : "no-opinion");
      if (!entry.allowed) assert.equal(decision.reason, "No policy matched.");
    });
  }

  it("refuses a file with a bad line, naming the line", () => {
    assert.throws(
      () => parseAbacPolicies(`${line({ user: "a" })}\n{not json`, "example.io"),
      (error: unknown) => error instanceof AbacPolicyError && /line 2/.test(error.message),
    );
    assert.throws(
      () => parseAbacPolicies(JSON.stringify({ apiVersion: "abac.authorization.other.io/v1beta1", kind: "Policy", spec: {} }), "example.io"),
      /expected apiVersion abac\.authorization\.example\.io\/v1beta1/,
    );
    assert.throws(() => parseAbacPolicies(line({ user: 1 }), "example.io"), /user must be a string/);
  });

  it("lists a user's rules for a namespace", () => {
    const rules = abacRules(policies, { name: "bob", groups: [] }, "projectCaribou");
    assert.deepEqual(rules.resourceRules, [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }]);
    assert.deepEqual(abacRules(policies, { name: "bob", groups: [] }, "elsewhere").resourceRules, []);
  });
});
