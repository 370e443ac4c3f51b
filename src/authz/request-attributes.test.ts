import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseRequestInfo } from "../request/request-info.js";
import type { Attributes } from "./authorizer.js";
import { requestAttributes } from "./request-attributes.js";

interface Case {
  readonly name: string;
  readonly method: string;
  readonly url: string;
  readonly want: Partial<Record<string, string>> & { readonly kind: Attributes["kind"] };
}

const CASES: readonly Case[] = [
  {
    name: "POST is create",
    method: "POST",
    url: "/api/v1/namespaces/ns/pods",
    want: { kind: "resource", verb: "create", group: "", namespace: "ns", resource: "pods", name: "" },
  },
  { name: "GET of one object is get", method: "GET", url: "/api/v1/namespaces/ns/pods/p", want: { kind: "resource", verb: "get", name: "p" } },
  { name: "HEAD of one object is get", method: "HEAD", url: "/api/v1/namespaces/ns/pods/p", want: { kind: "resource", verb: "get" } },
  { name: "GET of a collection is list", method: "GET", url: "/api/v1/namespaces/ns/pods", want: { kind: "resource", verb: "list", name: "" } },
  { name: "GET with watch=true is watch", method: "GET", url: "/api/v1/pods?watch=true", want: { kind: "resource", verb: "watch", namespace: "" } },
  {
    name: "PUT is update",
    method: "PUT",
    url: "/apis/apps/v1/namespaces/ns/deployments/d",
    want: { kind: "resource", verb: "update", group: "apps", resource: "deployments", name: "d" },
  },
  { name: "PATCH is patch", method: "PATCH", url: "/api/v1/nodes/n", want: { kind: "resource", verb: "patch", namespace: "", resource: "nodes", name: "n" } },
  { name: "DELETE of one object is delete", method: "DELETE", url: "/api/v1/namespaces/ns/secrets/s", want: { kind: "resource", verb: "delete", name: "s" } },
  {
    name: "DELETE of a collection is deletecollection",
    method: "DELETE",
    url: "/api/v1/namespaces/ns/secrets",
    want: { kind: "resource", verb: "deletecollection", name: "" },
  },
  {
    name: "a sub-resource is kept apart from the resource",
    method: "GET",
    url: "/api/v1/namespaces/ns/pods/p/log",
    want: { kind: "resource", verb: "get", resource: "pods", subresource: "log", name: "p" },
  },
  { name: "the core group is the empty string", method: "GET", url: "/api/v1/configmaps", want: { kind: "resource", group: "" } },
  {
    name: "a named group is its name",
    method: "GET",
    url: "/apis/rbac.authorization.orch.io/v1/clusterroles/x",
    want: { kind: "resource", group: "rbac.authorization.orch.io", resource: "clusterroles", name: "x" },
  },
  { name: "a non-resource request uses the lower-cased method", method: "POST", url: "/logs/x", want: { kind: "non-resource", verb: "post", path: "/logs/x" } },
  { name: "discovery paths are non-resource", method: "GET", url: "/apis/apps/v1", want: { kind: "non-resource", verb: "get", path: "/apis/apps/v1" } },
  {
    name: "a list pinned to one name by metadata.name is authorized for that name",
    method: "GET",
    url: "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dc",
    want: { kind: "resource", verb: "list", name: "c" },
  },
  {
    name: "a watch pinned by metadata.name== is authorized for that name",
    method: "GET",
    url: "/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dc",
    want: { kind: "resource", verb: "watch", name: "c" },
  },
  {
    name: "metadata.name!= does not pin a name",
    method: "GET",
    url: "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name!%3Dc",
    want: { kind: "resource", verb: "list", name: "" },
  },
  {
    name: "deletecollection is never pinned to a name",
    method: "DELETE",
    url: "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dc",
    want: { kind: "resource", verb: "deletecollection", name: "" },
  },
  {
    name: "an unparsable field selector pins nothing",
    method: "GET",
    url: "/api/v1/namespaces/ns/configmaps?fieldSelector=%3D%3D",
    want: { kind: "resource", verb: "list", name: "" },
  },
];

describe("requestAttributes()", () => {
  for (const entry of CASES) {
    it(entry.name, () => {
      const url = new URL(entry.url, "https://x");
      const attributes = requestAttributes(parseRequestInfo(entry.method, url.pathname, url.searchParams), url.searchParams);
      const seen: Record<string, unknown> = { ...attributes };
      for (const [key, value] of Object.entries(entry.want)) assert.equal(seen[key], value, key);
    });
  }

  it("keeps exact field terms for authorizers that scope by them", () => {
    const url = new URL("https://x/api/v1/pods?fieldSelector=spec.nodeName%3Dn1,status.phase!%3DFailed");
    const attributes = requestAttributes(parseRequestInfo("GET", url.pathname, url.searchParams), url.searchParams);
    assert.equal(attributes.kind, "resource");
    if (attributes.kind === "resource") assert.deepEqual([...(attributes.fieldEquals ?? [])], [["spec.nodeName", "n1"]]);
  });
});
