import type { UserInfo } from "../request/context.js";

export type Decision =
  | { readonly kind: "allow"; readonly reason: string }
  | { readonly kind: "deny"; readonly reason: string }
  | { readonly kind: "no-opinion"; readonly reason: string };

/**
 * What an authorizer decides on, as kube's `authorizer.Attributes`: a resource request (verb,
 * API group "" for core, namespace "" for cluster scope, resource, sub-resource, name) or a
 * non-resource request (lower-cased HTTP method, path). `verb` is open: besides the verbs a
 * request maps to (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
 * `deletecollection`) callers ask about special verbs (`impersonate`, `bind`, `escalate`,
 * `approve`, `sign`, `use`). A `RequestInfo` is a valid `Attributes`.
 */
export type Attributes = ResourceAttributes | NonResourceAttributes;

export interface ResourceAttributes {
  readonly kind: "resource";
  readonly verb: string;
  readonly group: string;
  /** The request's API version; `*` or absent when the question is version-independent. */
  readonly version?: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  /** The object's name; for list and watch, the name an exact `metadata.name` field selector pins. */
  readonly name: string;
  /** Exact-match (`=`/`==`) field selector terms of a list, watch or deletecollection. */
  readonly fieldEquals?: ReadonlyMap<string, string>;
}

export interface NonResourceAttributes {
  readonly kind: "non-resource";
  /** Lower-cased HTTP method. */
  readonly verb: string;
  readonly path: string;
}

/**
 * The Authorizer seam: three-valued, so a union can fall through modules with no opinion.
 * `authorize` must not throw for an ordinary refusal; a failure to decide (a webhook that does
 * not answer) is `no-opinion` with the failure as the reason. Callers never mutate `attributes`.
 */
export interface Authorizer {
  readonly name: string;
  authorize(user: UserInfo, attributes: Attributes): Promise<Decision>;
}

/**
 * The first decision that is not no-opinion wins; if every module abstains, so does the union,
 * with the abstainers' reasons (kube's union; RBAC gives a reason only when a binding names a
 * missing role). Callers treat anything but allow as refused: the default is deny, and an access
 * review reports `denied` only for an explicit deny.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    name: "union",
    async authorize(user, attributes) {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const decision = await authorizer.authorize(user, attributes);
        if (decision.kind !== "no-opinion") return decision;
        if (decision.reason !== "") reasons.push(decision.reason);
      }
      return { kind: "no-opinion", reason: reasons.join(", ") };
    },
  };
}

/** `--authorization-mode=AlwaysAllow`: every request is allowed. */
export function alwaysAllowAuthorizer(): Authorizer {
  return { name: "AlwaysAllow", authorize: async () => ({ kind: "allow", reason: "" }) };
}

/** `--authorization-mode=AlwaysDeny` (testing): every request is denied. */
export function alwaysDenyAuthorizer(): Authorizer {
  return { name: "AlwaysDeny", authorize: async () => ({ kind: "deny", reason: "Everything is forbidden." }) };
}

/** Resource requests that only read: what ABAC's `readonly` admits. */
export function isReadOnly(attributes: Attributes): boolean {
  return attributes.verb === "get" || attributes.verb === "list" || attributes.verb === "watch";
}
