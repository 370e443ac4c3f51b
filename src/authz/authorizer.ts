import type { RequestInfo } from "../request/request-info.js";
import type { UserInfo } from "../request/context.js";

export type Decision = { readonly kind: "allow"; readonly reason: string } | { readonly kind: "deny"; readonly reason: string } | { readonly kind: "no-opinion"; readonly reason: string };

/** The Authorizer seam: three-valued, so a union can fall through modules with no opinion. */
export interface Authorizer {
  readonly name: string;
  authorize(user: UserInfo, info: RequestInfo): Promise<Decision>;
}

/** The first decision that is not no-opinion wins; if every module abstains, deny. */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    name: "union",
    async authorize(user, info) {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const decision = await authorizer.authorize(user, info);
        if (decision.kind !== "no-opinion") return decision;
        if (decision.reason !== "") reasons.push(decision.reason);
      }
      return { kind: "deny", reason: reasons.join(", ") };
    },
  };
}

/** `system:masters` may do everything. TODO(#7): RBAC replaces the rest. */
export function mastersAuthorizer(): Authorizer {
  return {
    name: "masters",
    async authorize(user) {
      return user.groups.includes("system:masters") ? { kind: "allow", reason: "system:masters" } : { kind: "no-opinion", reason: "" };
    },
  };
}

const PUBLIC_PATHS = ["/healthz", "/livez", "/readyz", "/version"];
const DISCOVERY_PATHS = ["/api", "/apis", "/openapi"];

function underAny(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * What kube's default bootstrap roles grant before any RBAC object exists: health and version
 * to everyone (system:public-info-viewer), discovery to authenticated users (system:discovery).
 */
export function publicInfoAuthorizer(): Authorizer {
  return {
    name: "public-info",
    async authorize(user, info) {
      if (info.kind !== "non-resource" || info.verb !== "get") return { kind: "no-opinion", reason: "" };
      if (underAny(info.path, PUBLIC_PATHS)) return { kind: "allow", reason: "public info" };
      if (user.groups.includes("system:authenticated") && underAny(info.path, DISCOVERY_PATHS)) return { kind: "allow", reason: "discovery" };
      return { kind: "no-opinion", reason: "" };
    },
  };
}
