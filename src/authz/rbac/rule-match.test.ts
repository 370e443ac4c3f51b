import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Attributes } from "../authorizer.js";
import type { PolicyRule } from "./policy.js";
import { ruleAllows } from "./rule-match.js";

function resource(verb: string, resourceName: string, options: { group?: string; subresource?: string; name?: string; namespace?: string } = {}): Attributes {
  return {
    kind: "resource",
    verb,
    group: options.group ?? "",
    namespace: options.namespace ?? "ns",
    resource: resourceName,
    subresource: options.subresource ?? "",
    name: options.name ?? "",
  };
}

function path(verb: string, url: string): Attributes {
  return { kind: "non-resource", verb, path: url };
}

interface Case {
  readonly name: string;
  readonly rule: PolicyRule;
  readonly request: Attributes;
  readonly allowed: boolean;
}

const PODS_GET: PolicyRule = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };

const CASES: readonly Case[] = [
  // verbs
  { name: "matches a listed verb", rule: PODS_GET, request: resource("get", "pods", { name: "p" }), allowed: true },
  { name: "refuses an unlisted verb", rule: PODS_GET, request: resource("delete", "pods", { name: "p" }), allowed: false },
  {
    name: "matches any verb with *",
    rule: { verbs: ["*"], apiGroups: [""], resources: ["pods"] },
    request: resource("deletecollection", "pods"),
    allowed: true,
  },
  {
    name: "matches a special verb when listed",
    rule: { verbs: ["impersonate"], apiGroups: [""], resources: ["users"] },
    request: resource("impersonate", "users", { name: "jane", namespace: "" }),
    allowed: true,
  },
  { name: "does not give get for watch", rule: PODS_GET, request: resource("watch", "pods"), allowed: false },
  {
    name: "matches approve on a signer by its resource name",
    rule: { verbs: ["approve"], apiGroups: ["certificates.example"], resources: ["signers"], resourceNames: ["example.com/serving"] },
    request: resource("approve", "signers", { group: "certificates.example", name: "example.com/serving", namespace: "" }),
    allowed: true,
  },
  {
    name: "matches sign on a signer domain wildcard name (asked for literally as <domain>/*)",
    rule: { verbs: ["sign"], apiGroups: ["certificates.example"], resources: ["signers"], resourceNames: ["example.com/*"] },
    request: resource("sign", "signers", { group: "certificates.example", name: "example.com/*", namespace: "" }),
    allowed: true,
  },
  {
    name: "does not treat a signer resource name as a pattern",
    rule: { verbs: ["sign"], apiGroups: ["certificates.example"], resources: ["signers"], resourceNames: ["example.com/*"] },
    request: resource("sign", "signers", { group: "certificates.example", name: "example.com/serving", namespace: "" }),
    allowed: false,
  },
  {
    name: "matches use on a named policy",
    rule: { verbs: ["use"], apiGroups: ["policy"], resources: ["podsecuritypolicies"], resourceNames: ["restricted"] },
    request: resource("use", "podsecuritypolicies", { group: "policy", name: "restricted", namespace: "" }),
    allowed: true,
  },
  // API groups
  { name: "matches the core group as an empty string", rule: PODS_GET, request: resource("get", "pods", { group: "" }), allowed: true },
  { name: "refuses another group", rule: PODS_GET, request: resource("get", "pods", { group: "apps" }), allowed: false },
  {
    name: "matches any group with *",
    rule: { verbs: ["get"], apiGroups: ["*"], resources: ["deployments"] },
    request: resource("get", "deployments", { group: "apps" }),
    allowed: true,
  },
  {
    name: "refuses a rule without apiGroups for a resource request",
    rule: { verbs: ["get"], resources: ["pods"] },
    request: resource("get", "pods"),
    allowed: false,
  },
  // resources and sub-resources (kube's RBAC meaning)
  {
    name: "does not give a sub-resource by the resource's name",
    rule: PODS_GET,
    request: resource("get", "pods", { subresource: "log", name: "p" }),
    allowed: false,
  },
  {
    name: "gives a sub-resource named resource/sub",
    rule: { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
    request: resource("get", "pods", { subresource: "log", name: "p" }),
    allowed: true,
  },
  {
    name: "does not give the resource for resource/sub",
    rule: { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
    request: resource("get", "pods", { name: "p" }),
    allowed: false,
  },
  {
    name: "matches every resource with *",
    rule: { verbs: ["get"], apiGroups: [""], resources: ["*"] },
    request: resource("get", "secrets", { name: "s" }),
    allowed: true,
  },
  {
    name: "matches every sub-resource with * too",
    rule: { verbs: ["update"], apiGroups: [""], resources: ["*"] },
    request: resource("update", "pods", { subresource: "status", name: "p" }),
    allowed: true,
  },
  {
    name: "matches one sub-resource of every resource with */scale",
    rule: { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] },
    request: resource("update", "deployments", { group: "apps", subresource: "scale", name: "d" }),
    allowed: true,
  },
  {
    name: "does not match another sub-resource with */scale",
    rule: { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] },
    request: resource("update", "deployments", { group: "apps", subresource: "status", name: "d" }),
    allowed: false,
  },
  {
    name: "does not match the resource itself with */scale",
    rule: { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] },
    request: resource("update", "deployments", { group: "apps", name: "d" }),
    allowed: false,
  },
  {
    name: "does not match a longer sub-resource ending alike with */scale",
    rule: { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] },
    request: resource("update", "deployments", { group: "apps", subresource: "rescale", name: "d" }),
    allowed: false,
  },
  // resource names
  { name: "matches a listed resource name", rule: { ...PODS_GET, resourceNames: ["a", "b"] }, request: resource("get", "pods", { name: "b" }), allowed: true },
  { name: "refuses an unlisted resource name", rule: { ...PODS_GET, resourceNames: ["a"] }, request: resource("get", "pods", { name: "c" }), allowed: false },
  {
    name: "never gives create through a name-limited rule (no name at authorization)",
    rule: { verbs: ["create"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
    request: resource("create", "pods"),
    allowed: false,
  },
  {
    name: "never gives deletecollection through a name-limited rule",
    rule: { verbs: ["deletecollection"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
    request: resource("deletecollection", "pods"),
    allowed: false,
  },
  {
    name: "never gives list of everything through a name-limited rule",
    rule: { verbs: ["list"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
    request: resource("list", "pods"),
    allowed: false,
  },
  {
    name: "gives create without resourceNames",
    rule: { verbs: ["create"], apiGroups: [""], resources: ["pods"] },
    request: resource("create", "pods"),
    allowed: true,
  },
  // non-resource URLs
  { name: "matches an exact non-resource URL", rule: { verbs: ["get"], nonResourceURLs: ["/healthz"] }, request: path("get", "/healthz"), allowed: true },
  {
    name: "does not match a sub-path without a wildcard",
    rule: { verbs: ["get"], nonResourceURLs: ["/healthz"] },
    request: path("get", "/healthz/ping"),
    allowed: false,
  },
  {
    name: "matches a prefix with a trailing *",
    rule: { verbs: ["get"], nonResourceURLs: ["/healthz/*"] },
    request: path("get", "/healthz/ping"),
    allowed: true,
  },
  { name: "matches every path with *", rule: { verbs: ["*"], nonResourceURLs: ["*"] }, request: path("post", "/anything"), allowed: true },
  {
    name: "checks the lower-cased HTTP method as the verb",
    rule: { verbs: ["get"], nonResourceURLs: ["/metrics"] },
    request: path("post", "/metrics"),
    allowed: false,
  },
  {
    name: "does not let resource rules match paths",
    rule: { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
    request: path("get", "/version"),
    allowed: false,
  },
  {
    name: "does not let non-resource rules match resources",
    rule: { verbs: ["*"], nonResourceURLs: ["*"] },
    request: resource("get", "pods", { name: "p" }),
    allowed: false,
  },
];

describe("ruleAllows()", () => {
  for (const entry of CASES) {
    it(entry.name, () => {
      assert.equal(ruleAllows(entry.rule, entry.request), entry.allowed);
    });
  }
});
