import { ApiError } from "../api/errors.js";
import { queryFieldSelector } from "../request/query/index.js";
import type { RequestInfo } from "../request/request-info.js";
import type { Attributes } from "./authorizer.js";

/** Path-segment names as kube's `IsValidPathSegmentName` allows them. */
function validPathSegment(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("%");
}

/**
 * The attributes a request is authorized with, as kube's request-info factory makes them: a list
 * or watch whose field selector pins `metadata.name` exactly is authorized for that name (so
 * `resourceNames` rules cover `kubectl get cm x -w`), and the exact-match field terms are kept
 * for authorizers that scope by them (the Node authorizer's `spec.nodeName`). A selector that
 * does not parse adds nothing here; the handler answers it with 400.
 */
export function requestAttributes(info: RequestInfo, query: URLSearchParams): Attributes {
  if (info.kind === "non-resource") return info;
  if (info.verb !== "list" && info.verb !== "watch" && info.verb !== "deletecollection") return info;
  let requirements: ReturnType<typeof queryFieldSelector>;
  try {
    requirements = queryFieldSelector(query);
  } catch (error) {
    if (error instanceof ApiError) return info;
    throw error;
  }
  if (requirements.length === 0) return info;
  const fieldEquals = new Map<string, string>();
  for (const requirement of requirements) if (requirement.op === "=") fieldEquals.set(requirement.field, requirement.value);
  const pinned = fieldEquals.get("metadata.name");
  const name = info.name === "" && info.verb !== "deletecollection" && pinned !== undefined && validPathSegment(pinned) ? pinned : info.name;
  return { ...info, name, fieldEquals };
}
