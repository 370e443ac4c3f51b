import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { RequestInfo } from "../../request/request-info.js";
import { evaluatePolicy, parseAuditPolicy } from "./policy.js";

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

  it("kube's wildcards: `*` is every resource and subresource, `plural/*` the resource and its subresources; an entry without resources is the whole group", () => {
    const policy = `${HEADER}rules:
  - level: RequestResponse
    resources: [{ group: "", resources: ["pods/*"] }]
  - level: Request
    resources: [{ group: "apps", resources: ["*"], resourceNames: ["web"] }]
  - level: Metadata
    resources: [{ group: "batch" }]
`;
    assert.equal(levelOf(policy, alice, resource("get", "pods", { name: "p" })), "RequestResponse");
    assert.equal(levelOf(policy, alice, resource("get", "pods", { name: "p", subresource: "log" })), "RequestResponse");
    assert.equal(levelOf(policy, alice, resource("get", "services", { name: "p" })), "None");
    assert.equal(levelOf(policy, alice, resource("update", "deployments", { group: "apps", name: "web", subresource: "scale" })), "Request");
    assert.equal(levelOf(policy, alice, resource("get", "statefulsets", { group: "apps", name: "web" })), "Request");
    assert.equal(levelOf(policy, alice, resource("get", "statefulsets", { group: "apps", name: "db" })), "None");
    assert.equal(levelOf(policy, alice, resource("get", "jobs", { group: "batch", name: "j", subresource: "status" })), "Metadata");
  });

  it("refuses the wrong group; validation findings in kube's words, all together", () => {
    assert.throws(() => parseAuditPolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", GROUP), {
      message:
        "expected apiVersion audit.orch.io/v1 and kind Policy, got audit.k8s.io/v1 Policy; this server runs --compat orch, which spells audit.k8s.io as audit.orch.io: change the apiVersion, or start the server with --compat kubernetes to use a stock Kubernetes file as it is",
    });
    assert.throws(() => parseAuditPolicy("apiVersion: audit.example.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", GROUP), {
      message: "expected apiVersion audit.orch.io/v1 and kind Policy, got audit.example.io/v1 Policy",
    });
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: [{level: Everything}]\n`, GROUP), {
      message: 'rules[0].level: Unsupported value: "Everything": supported values: "Metadata", "None", "Request", "RequestResponse"',
    });
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: [{verbs: [get]}]\n`, GROUP), { message: "rules[0].level: Required value" });
    assert.throws(() => parseAuditPolicy(`${HEADER}omitStages: [Done]\nrules: [{level: Metadata}]\n`, GROUP), {
      message: 'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
    });
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: [{level: Metadata, nonResourceURLs: ["/x"], namespaces: [a]}]\n`, GROUP), {
      message: 'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    });
    assert.throws(
      () =>
        parseAuditPolicy(
          `${HEADER}rules:\n  - level: Metadata\n    nonResourceURLs: ["healthz", "/a*b"]\n  - level: None\n    resources: [{group: Apps, resourceNames: [x]}]\n    omitStages: [Later]\n`,
          GROUP,
        ),
      {
        message:
          "[rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' character, " +
          "rules[0].nonResourceURLs[1]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be the final character of the rule, " +
          "rules[1].resources.group: Invalid value: \"Apps\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), " +
          'rules[1].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource, ' +
          'rules[1].omitStages[0]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]',
      },
    );
    assert.throws(() => parseAuditPolicy(`${HEADER}rules: []\n`, GROUP), { message: "loaded illegal policy with 0 rules" });
    assert.throws(() => parseAuditPolicy(HEADER, GROUP), { message: "loaded illegal policy with 0 rules" });
    assert.equal(parseAuditPolicy(`${HEADER}rules: [{level: None, nonResourceURLs: ["*"]}]\n`, GROUP).rules.length, 1);
  });
});

describe("published audit policies (test/fixtures/real-config)", () => {
  it("kubespray's GCE-derived policy parses: events and health URLs at None, secrets at Metadata, reads at Request, writes at RequestResponse", () => {
    const text = readFileSync(join(import.meta.dirname, "../../../../test/fixtures/real-config/audit-policy-kubespray-gce.yaml"), "utf8");
    // Rendered by a template, the file ends in a document separator; kube reads the first document.
    const policy = parseAuditPolicy(`${text}---\n`, "audit.k8s.io");
    const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };
    const levelOf = (user: typeof admin, info: RequestInfo): string => evaluatePolicy(policy, user, info, info.verb).level;
    assert.equal(levelOf(admin, resource("list", "events")), "None");
    assert.equal(levelOf(admin, { kind: "non-resource", verb: "get", path: "/healthz/etcd" } as RequestInfo), "None");
    assert.equal(levelOf(admin, resource("create", "secrets", { namespace: "default" })), "Metadata");
    assert.equal(levelOf(admin, resource("get", "deployments", { group: "apps", namespace: "default", name: "web" })), "Request");
    assert.equal(levelOf(admin, resource("create", "deployments", { group: "apps", namespace: "default" })), "RequestResponse");
    assert.equal(levelOf({ name: "kubelet", groups: ["system:nodes"] }, resource("get", "nodes", { name: "n1" })), "None");
  });
});
