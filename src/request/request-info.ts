import { queryBoolean } from "./query/index.js";

/** What a request is about, derived from method, path and query alone. */
export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

export type ResourceVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceRequestInfo {
  readonly kind: "resource";
  readonly verb: ResourceVerb;
  readonly apiPrefix: "api" | "apis";
  readonly group: string;
  readonly version: string;
  /** "" for cluster-scoped requests and for namespaced requests across all namespaces. */
  readonly namespace: string;
  readonly resource: string;
  readonly name: string;
  /** One path segment, as kube's RequestInfo has it (`pods/p/proxy/a/b` is `proxy`): what authorization, audit, metrics and flow control see. */
  readonly subresource: string;
  /** The path after the sub-resource (kube's further `Parts`: `a/b` above); undefined when the path ends at it. Only proxies serve one. */
  readonly subpath?: string;
}

export interface NonResourceRequestInfo {
  readonly kind: "non-resource";
  /** Lower-cased HTTP method (`get`, `post`, …) as kube's authorizer sees it. */
  readonly verb: string;
  readonly path: string;
}

/** Sub-resources of a namespace that do not start a namespaced path (`/namespaces/{n}/status`). */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * Parses kube's path shapes: `/api/v1/...`, `/apis/{group}/{version}/...`, optionally
 * `namespaces/{namespace}/` before the resource. Paths that are only discovery (`/api`,
 * `/apis/{group}`, `/apis/{group}/{version}`) or not under an API prefix are non-resource.
 * `watch` is read as kube reads booleans (`?watch=True`, `?watch=maybe` and a bare `?watch` watch;
 * `0` and `false` in any case do not). Pure: no I/O, no knowledge of which resources exist.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const lowerMethod = method.toLowerCase();
  const nonResource: NonResourceRequestInfo = { kind: "non-resource", verb: lowerMethod === "head" ? "get" : lowerMethod, path };
  const parts = path.split("/").filter((part) => part !== "");
  const prefix = parts[0];
  if (prefix !== "api" && prefix !== "apis") return nonResource;
  let rest: string[];
  let group = "";
  let version: string;
  if (prefix === "api") {
    if (parts.length < 3) return nonResource;
    version = parts[1] ?? "";
    rest = parts.slice(2);
  } else {
    if (parts.length < 4) return nonResource;
    group = parts[1] ?? "";
    version = parts[2] ?? "";
    rest = parts.slice(3);
  }
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length > 1) {
    namespace = rest[1] ?? "";
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] ?? "")) rest = rest.slice(2);
  }
  const resource = rest[0] ?? "";
  const name = rest[1] ?? "";
  const subresource = rest[2] ?? "";
  const verb = verbFor(lowerMethod, name !== "", queryBoolean(query, "watch") ?? false);
  if (verb === undefined) return nonResource;
  const info: ResourceRequestInfo = { kind: "resource", verb, apiPrefix: prefix, group, version, namespace, resource, name, subresource };
  return rest.length > 3 ? { ...info, subpath: rest.slice(3).join("/") } : info;
}

function verbFor(method: string, hasName: boolean, watch: boolean): ResourceVerb | undefined {
  switch (method) {
    case "get":
    case "head":
      if (watch) return "watch";
      return hasName ? "get" : "list";
    case "post":
      return "create";
    case "put":
      return "update";
    case "patch":
      return "patch";
    case "delete":
      return hasName ? "delete" : "deletecollection";
    default:
      return undefined;
  }
}
