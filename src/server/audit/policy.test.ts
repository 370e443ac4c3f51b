import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RequestInfo } from "../../request/request-info.js";
import { AuditPolicyError, evaluatePolicy, parseAuditPolicy } from "./policy.js";

const GROUP = "audit.orch.io";
const alice = { name: "alice", groups: ["devs", "system:authenticated"] };

function resource(
  verb: RequestInfo["verb"],
  resource: string,
  options: { group?: string; namespace?: string; name?: string; subresource?: string } = {},
): RequestInfo {
  return {
    kind: "resource",
    verb: verb as "get",
    apiPrefix: options.group === undefined ? "api" : "apis",
    group: options.group ?? "",
    version: "v1",
    namespace: options.namespace ?? "",
    resource,
    name: options.name ?? "",
    subresource: options.subresource ?? "",
  };
}

function levelOf(policyText: string, user: typeof alice, info: RequestInfo): string {
  return evaluatePolicy(parseAuditPolicy(policyText, GROUP), user, info, info.verb).level;
}

const HEADER = `apiVersion: audit.orch.io/v1\nkind: Policy\n`;

describe("audit policy", () => {
  it("the first matching rule decides; no match is None", () => {
    const policy = `${HEADER}rules:\n  - level: RequestResponse\n    verbs: [create]\n  - level: Metadata\n    verbs: [get]\n`;
    assert.equal(levelOf(policy, alice, resource("create", "pods")), "RequestResponse");
    assert.equal(levelOf(policy, alice, resource("get", "pods")), "Metadata");
    assert.equal(levelOf(policy, alice, resource("list", "pods")), "None");
  });

  it("users and userGroups", () => {
    const policy = `${HEADER}rules:\n  - level: Request\n    users: [bob]\n  - level: Metadata\n    userGroups: [devs]\n`;
    assert.equal(levelOf(policy, { name: "bob", groups: [] }, resource("get", "pods")), "Request");
    assert.equal(levelOf(policy, alice, resource("get", "pods")), "Metadata");
    assert.equal(levelOf(policy, { name: "carol", groups: ["ops"] }, resource("get", "pods")), "None");
  });

  it("resources by group, subresource patterns and resourceNames; namespaces", () => {
    const policy = `${HEADER}rules:
  - level: RequestResponse
    resources: [{ group: "", resources: ["pods/log", "*/status"] }]
  - level: Request
    resources: [{ group: "apps", resources: ["deployments"], resourceNames: ["web"] }]
  - level: Metadata
    namespaces: ["team"]
`;
    assert.equal(levelOf(policy, alice, resource("get", "pods", { name: "p", subresource: "log" })), "RequestResponse");
    assert.equal(levelOf(policy, alice, resource("update", "services", { name: "s", subresource: "status" })), "RequestResponse");
    assert.equal(levelOf(policy, alice, resource("get", "deployments", { group: "apps", name: "web" })), "Request");
    assert.equal(levelOf(policy, alice, resource("get", "deployments", { group: "apps", name: "api" })), "None");
    assert.equal(levelOf(policy, alice, resource("get", "deployments", { group: "apps", name: "api", namespace: "team" })), "Metadata");
    assert.equal(levelOf(policy, alice, { kind: "non-resource", verb: "get", path: "/version" }), "None");
  });

  it("nonResourceURLs with a trailing * match by prefix and never match resources", () => {
    const policy = `${HEADER}rules:\n  - level: Metadata\n    nonResourceURLs: ["/healthz*", "/version"]\n`;
    assert.equal(levelOf(policy, alice, { kind: "non-resource", verb: "get", path: "/healthz/ping" }), "Metadata");
    assert.equal(levelOf(policy, alice, { kind: "non-resource", verb: "get", path: "/version" }), "Metadata");
    assert.equal(levelOf(policy, alice, { kind: "non-resource", verb: "get", path: "/versions" }), "None");
    assert.equal(levelOf(policy, alice, resource("get", "pods")), "None");
  });

  it("omitStages and omitManagedFields: the policy's, with the rule's added or overriding", () => {
    const policy = parseAuditPolicy(
      `${HEADER}omitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n  - level: Metadata\n    omitStages: [ResponseStarted]\n    omitManagedFields: false\n`,
      GROUP,
    );
    const decision = evaluatePolicy(policy, alice, resource("get", "pods"), "get");
    assert.deepEqual([...decision.omitStages].sort(), ["RequestReceived", "ResponseStarted"]);
    assert.equal(decision.omitManagedFields, false);
  });

  it("refuses the wrong group, unknown levels and stages, and mixed resource and URL rules", () => {
    assert.throws(() => parseAuditPolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", GROUP), AuditPolicyError);
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: [{level: Everything}]\n`, GROUP), /level must be one of/);
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: [{level: Metadata, omitStages: [Done]}]\n`, GROUP), /unknown stage "Done"/);
    assert.throws(
      () => parseAuditPolicy(`${HEADER}rules: [{level: Metadata, nonResourceURLs: ["/x"], namespaces: [a]}]\n`, GROUP),
      /both regular resources and non-resource URLs/,
    );
  });
});
