import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseRequestInfo, type RequestInfo } from "./request-info.js";

interface Case {
  readonly name: string;
  readonly method: string;
  readonly url: string;
  readonly want: Partial<RequestInfo> & { kind: RequestInfo["kind"] };
}

const CASES: readonly Case[] = [
  {
    name: "treats GET on a core collection as list",
    method: "GET",
    url: "/api/v1/pods",
    want: { kind: "resource", verb: "list", group: "", version: "v1", resource: "pods", namespace: "", name: "" },
  },
  {
    name: "treats GET without a name in a namespace as list",
    method: "GET",
    url: "/api/v1/namespaces/default/pods",
    want: { kind: "resource", verb: "list", namespace: "default", resource: "pods" },
  },
  {
    name: "treats GET with a name as get",
    method: "GET",
    url: "/api/v1/namespaces/default/pods/p1",
    want: { kind: "resource", verb: "get", namespace: "default", resource: "pods", name: "p1" },
  },
  { name: "treats watch=1 as watch", method: "GET", url: "/api/v1/pods?watch=1", want: { kind: "resource", verb: "watch", resource: "pods" } },
  {
    name: "treats watch=true on one object as watch",
    method: "GET",
    url: "/api/v1/namespaces/a/configmaps/x?watch=true",
    want: { kind: "resource", verb: "watch", name: "x" },
  },
  { name: "treats watch=false as list", method: "GET", url: "/api/v1/pods?watch=false", want: { kind: "resource", verb: "list" } },
  { name: "treats watch=True (the Python client) as watch", method: "GET", url: "/api/v1/pods?watch=True", want: { kind: "resource", verb: "watch" } },
  { name: "treats watch=maybe as watch, as kube does", method: "GET", url: "/api/v1/pods?watch=maybe", want: { kind: "resource", verb: "watch" } },
  { name: "treats a bare watch as watch", method: "GET", url: "/api/v1/pods?watch", want: { kind: "resource", verb: "watch" } },
  { name: "treats an empty watch= as watch", method: "GET", url: "/api/v1/pods?watch=", want: { kind: "resource", verb: "watch" } },
  { name: "treats watch=FALSE as list", method: "GET", url: "/api/v1/pods?watch=FALSE", want: { kind: "resource", verb: "list" } },
  { name: "treats watch=0 as list", method: "GET", url: "/api/v1/pods?watch=0", want: { kind: "resource", verb: "list" } },
  {
    name: "parses named groups",
    method: "GET",
    url: "/apis/apps/v1/namespaces/ns/deployments/d/status",
    want: { kind: "resource", verb: "get", group: "apps", version: "v1", namespace: "ns", resource: "deployments", name: "d", subresource: "status" },
  },
  {
    name: "treats POST as create",
    method: "POST",
    url: "/api/v1/namespaces/ns/configmaps",
    want: { kind: "resource", verb: "create", resource: "configmaps" },
  },
  {
    name: "keeps one segment as the sub-resource and the path after it apart, as kube's RequestInfo (a proxy with a path)",
    method: "GET",
    url: "/api/v1/namespaces/ns/services/https:web:443/proxy/metrics/cadvisor",
    want: { kind: "resource", verb: "get", resource: "services", name: "https:web:443", subresource: "proxy", subpath: "metrics/cadvisor" },
  },
  {
    name: "has no sub-path when the path ends at the sub-resource",
    method: "GET",
    url: "/api/v1/nodes/n1/proxy/",
    want: { kind: "resource", verb: "get", resource: "nodes", name: "n1", subresource: "proxy", subpath: undefined },
  },
  { name: "treats PUT as update", method: "PUT", url: "/api/v1/nodes/n1", want: { kind: "resource", verb: "update", resource: "nodes", name: "n1" } },
  { name: "treats PATCH as patch", method: "PATCH", url: "/api/v1/nodes/n1/status", want: { kind: "resource", verb: "patch", subresource: "status" } },
  {
    name: "treats DELETE with a name as delete",
    method: "DELETE",
    url: "/api/v1/namespaces/ns/secrets/s",
    want: { kind: "resource", verb: "delete", name: "s" },
  },
  {
    name: "treats DELETE on a collection as deletecollection",
    method: "DELETE",
    url: "/api/v1/namespaces/ns/secrets",
    want: { kind: "resource", verb: "deletecollection" },
  },
  {
    name: "reads a namespace by name",
    method: "GET",
    url: "/api/v1/namespaces/ns",
    want: { kind: "resource", verb: "get", resource: "namespaces", name: "ns", namespace: "ns" },
  },
  {
    name: "lists namespaces",
    method: "GET",
    url: "/api/v1/namespaces",
    want: { kind: "resource", verb: "list", resource: "namespaces", name: "", namespace: "" },
  },
  {
    name: "keeps namespace status a namespace sub-resource",
    method: "PUT",
    url: "/api/v1/namespaces/ns/status",
    want: { kind: "resource", verb: "update", resource: "namespaces", name: "ns", subresource: "status" },
  },
  {
    name: "keeps namespace finalize a namespace sub-resource",
    method: "PUT",
    url: "/api/v1/namespaces/ns/finalize",
    want: { kind: "resource", resource: "namespaces", subresource: "finalize" },
  },
  { name: "treats /api as non-resource", method: "GET", url: "/api", want: { kind: "non-resource", verb: "get", path: "/api" } },
  { name: "treats /api/v1 as non-resource", method: "GET", url: "/api/v1", want: { kind: "non-resource", path: "/api/v1" } },
  { name: "treats group discovery as non-resource", method: "GET", url: "/apis/apps/v1", want: { kind: "non-resource", path: "/apis/apps/v1" } },
  { name: "treats health as non-resource", method: "GET", url: "/readyz", want: { kind: "non-resource", verb: "get", path: "/readyz" } },
  { name: "treats unknown methods as non-resource", method: "OPTIONS", url: "/api/v1/pods", want: { kind: "non-resource", verb: "options" } },
];

describe("parseRequestInfo()", () => {
  for (const testCase of CASES) {
    it(testCase.name, () => {
      const url = new URL(testCase.url, "https://x");
      const info = parseRequestInfo(testCase.method, url.pathname, url.searchParams);
      for (const [key, value] of Object.entries(testCase.want)) {
        assert.equal((info as unknown as Record<string, unknown>)[key], value, `${key} of ${testCase.url}`);
      }
    });
  }
});
