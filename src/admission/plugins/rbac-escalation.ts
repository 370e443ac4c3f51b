import { forbidden, notFound } from "../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { confirmNoEscalation } from "../../authz/rbac/escalation.js";
import type { Freshness } from "../../authz/feed.js";
import type { RbacIndex } from "../../authz/rbac/policy-index.js";
import { roleRefOf, rulesOf } from "../../authz/rbac/policy.js";
import type { UserInfo } from "../../request/context.js";
import { canonicalJson } from "../../util/canonical-json.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../interface.js";

/** The group whose members may grant anything (kube's `EscalationAllowed`). */
export const PRIVILEGED_GROUP = "system:masters";

export interface RbacEscalationOptions {
  /** The RBAC API group (`rbac.authorization.<apiDomain>`). */
  readonly group: string;
  /** The authorization stage: its authorizer, the RBAC index, and how current the index is. */
  readonly authorization: { readonly authorizer: Authorizer; readonly index: RbacIndex; readonly freshness: Freshness };
}

/** Everything but the fields a garbage collector may change (kube's `IsOnlyMutatingGCFields`). */
function withoutGcFields(object: ApiObject): string {
  const { ownerReferences: _owners, finalizers: _finalizers, resourceVersion: _version, managedFields: _managed, ...metadata } = object.metadata;
  return canonicalJson({ ...object, metadata });
}

/**
 * RBAC escalation prevention, as kube's policy-based RBAC storage: creating or updating a Role or
 * ClusterRole needs every permission it grants (in its namespace, or cluster-wide) or the
 * `escalate` verb on it, and an `aggregationRule` needs `escalate`; creating or updating a
 * binding needs the permissions of the role it references or the `bind` verb on that role.
 * Members of `system:masters` and the server's own writes (no user) pass. A validating
 * admission step, so it judges the final object (after any mutation) inside the update loop.
 */
export function rbacEscalation(options: RbacEscalationOptions): AdmissionPlugin {
  async function allowedVerb(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
    const decision = await options.authorization.authorizer.authorize(user, {
      kind: "resource",
      verb,
      group: options.group,
      version: "*",
      namespace,
      resource,
      subresource: "",
      name,
    });
    return decision.kind === "allow";
  }

  async function checkRole(attributes: AdmissionAttributes, user: UserInfo, object: ApiObject): Promise<void> {
    const plural = attributes.resource.resource;
    const name = object.metadata.name ?? "";
    const namespace = plural === "roles" ? attributes.namespace : "";
    if (await allowedVerb(user, "escalate", plural, namespace, name)) return;
    const target = { group: options.group, resource: plural, name };
    const describe = `${plural}.${options.group} "${name}" is forbidden`;
    const hasAggregation = (candidate: ApiObject | undefined): boolean => candidate !== undefined && isPlainObject(candidate["aggregationRule"]);
    if (plural === "clusterroles" && (hasAggregation(object) || hasAggregation(attributes.oldObject))) {
      throw forbidden(`${describe}: must have cluster-admin privileges to use the aggregationRule`, target);
    }
    const authorization = options.authorization;
    const missing = await confirmNoEscalation({ index: authorization.index, freshness: authorization.freshness, user, namespace, rules: rulesOf(object) });
    if (missing !== undefined) throw forbidden(`${describe}: ${missing}`, target);
  }

  async function checkBinding(attributes: AdmissionAttributes, user: UserInfo, object: ApiObject): Promise<void> {
    const roleRef = roleRefOf(object);
    // Validation has already refused a binding without a usable roleRef.
    if (roleRef === undefined) return;
    const namespace = attributes.resource.resource === "rolebindings" ? attributes.namespace : "";
    const roleResource = roleRef.kind === "Role" ? "roles" : "clusterroles";
    if (await allowedVerb(user, "bind", roleResource, namespace, roleRef.name)) return;
    const authorization = options.authorization;
    let rules = authorization.index.roleRules(roleRef, namespace);
    if (rules === undefined && (await authorization.freshness.waitForCurrent(3000))) rules = authorization.index.roleRules(roleRef, namespace);
    if (rules === undefined) throw notFound({ group: options.group, resource: roleResource, name: roleRef.name });
    const missing = await confirmNoEscalation({ index: authorization.index, freshness: authorization.freshness, user, namespace, rules });
    const name = object.metadata.name ?? "";
    if (missing !== undefined)
      throw forbidden(`${attributes.resource.resource}.${options.group} "${name}" is forbidden: ${missing}`, {
        group: options.group,
        resource: attributes.resource.resource,
        name,
      });
  }

  return {
    name: "RBACEscalation",
    // The chain skips it for every other resource (a pod create does not call it).
    resources: new Set(["roles", "clusterroles", "rolebindings", "clusterrolebindings"]),
    handles: (operation) => operation === "CREATE" || operation === "UPDATE",
    async validate(attributes) {
      const { resource, user, object } = attributes;
      if (resource.group !== options.group || user === undefined || object === undefined) return;
      if (user.groups.includes(PRIVILEGED_GROUP)) return;
      if (attributes.subresource !== "") return;
      if (attributes.oldObject !== undefined && withoutGcFields(object) === withoutGcFields(attributes.oldObject)) return;
      switch (resource.resource) {
        case "roles":
        case "clusterroles":
          return checkRole(attributes, user, object);
        case "rolebindings":
        case "clusterrolebindings":
          return checkBinding(attributes, user, object);
      }
    },
  };
}
