import type { UserInfo } from "../../request/context.js";
import type { Attributes, Authorizer, Decision, ResourceAttributes } from "../authorizer.js";
import type { Freshness } from "../feed.js";
import type { NodeGraph, ReferenceKind } from "./node-graph.js";

export const NODES_GROUP = "system:nodes";
export const NODE_USER_PREFIX = "system:node:";

/** The node a user acts for: `system:node:<name>` in group `system:nodes`; undefined otherwise. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  const name = user.name.slice(NODE_USER_PREFIX.length);
  return name === "" ? undefined : name;
}

const READ = new Set(["get", "list", "watch"]);
const NO_OPINION: Decision = { kind: "no-opinion", reason: "" };

function allow(reason: string): Decision {
  return { kind: "allow", reason };
}

/**
 * The Node authorizer: a node agent (`system:node:<name>` in `system:nodes`) may read its own
 * Node (get, or list/watch pinned to it by a `metadata.name` field selector) and write it
 * (create, update, patch; `status` too); read the pods bound to it (get, or list/watch with a
 * `spec.nodeName=<name>` field selector) and write their `status`; read (get, or a single-object
 * list/watch) the secrets, config maps and persistent volume claims those pods reference and the
 * volumes bound to those claims; and create tokens (`serviceaccounts/token`) for the service
 * accounts they run as. Anything else gets no opinion (other modes may still grant it); other
 * users always get no opinion. Which name a node may create is NodeRestriction admission's check.
 * Relationship checks that fail are retried once the feeds reach the store's current revision.
 */
export function nodeAuthorizer(graph: NodeGraph, freshness: Freshness, options: { readonly freshnessWaitMs?: number } = {}): Authorizer {
  const waitMs = options.freshnessWaitMs ?? 3000;

  function decide(node: string, attributes: ResourceAttributes): { decision: Decision; relational: boolean } {
    const { verb, resource, subresource, name, namespace } = attributes;
    const noRelationship = (what: string): { decision: Decision; relational: boolean } => ({
      decision: { kind: "no-opinion", reason: `no relationship found between node '${node}' and this object (${what})` },
      relational: true,
    });
    const reference = (kind: ReferenceKind): { decision: Decision; relational: boolean } => {
      if (!READ.has(verb)) return { decision: { kind: "no-opinion", reason: `node '${node}' can only read ${resource}` }, relational: false };
      if (name === "") return { decision: { kind: "no-opinion", reason: `node '${node}' can only get individual ${resource}` }, relational: false };
      return graph.referencedBy(node, kind, namespace, name)
        ? { decision: allow(`node '${node}' runs a pod referencing ${resource} ${namespace}/${name}`), relational: true }
        : noRelationship(`${resource} ${namespace}/${name}`);
    };
    switch (resource) {
      case "nodes": {
        if (subresource === "" && verb === "create") return { decision: allow("node registration"), relational: false };
        const ownVerbs = subresource === "" ? ["get", "list", "watch", "update", "patch"] : subresource === "status" ? ["get", "update", "patch"] : [];
        if (ownVerbs.includes(verb) && name === node) return { decision: allow(`node '${node}' may ${verb} its own Node`), relational: false };
        return {
          decision: {
            kind: "no-opinion",
            reason: `node '${node}' cannot ${verb} ${subresource === "" ? "nodes" : `nodes/${subresource}`}${name === "" ? "" : ` '${name}'`}`,
          },
          relational: false,
        };
      }
      case "pods": {
        if (subresource === "" && (verb === "list" || verb === "watch") && name === "") {
          return attributes.fieldEquals?.get("spec.nodeName") === node
            ? { decision: allow(`pods bound to node '${node}'`), relational: false }
            : {
                decision: { kind: "no-opinion", reason: `node '${node}' can only list and watch pods with the field selector spec.nodeName=${node}` },
                relational: false,
              };
        }
        const allowed = subresource === "" ? READ.has(verb) : subresource === "status" && ["get", "update", "patch"].includes(verb);
        if (!allowed || name === "")
          return {
            decision: { kind: "no-opinion", reason: `node '${node}' cannot ${verb} pods${subresource === "" ? "" : `/${subresource}`}` },
            relational: false,
          };
        return graph.podNode(namespace, name) === node
          ? { decision: allow(`pod ${namespace}/${name} is bound to node '${node}'`), relational: true }
          : noRelationship(`pod ${namespace}/${name}`);
      }
      case "secrets":
        return subresource === "" ? reference("secret") : { decision: NO_OPINION, relational: false };
      case "configmaps":
        return subresource === "" ? reference("configmap") : { decision: NO_OPINION, relational: false };
      case "persistentvolumeclaims":
        return subresource === "" ? reference("pvc") : { decision: NO_OPINION, relational: false };
      case "persistentvolumes": {
        if (subresource !== "" || !READ.has(verb) || name === "")
          return { decision: { kind: "no-opinion", reason: `node '${node}' can only get individual persistentvolumes` }, relational: false };
        return graph.volumeReachable(node, name)
          ? { decision: allow(`volume ${name} is bound to a claim of a pod on node '${node}'`), relational: true }
          : noRelationship(`persistentvolume ${name}`);
      }
      case "serviceaccounts": {
        if (subresource !== "token" || verb !== "create") return { decision: NO_OPINION, relational: false };
        return graph.referencedBy(node, "serviceaccount", namespace, name)
          ? { decision: allow(`a pod on node '${node}' runs as ${namespace}/${name}`), relational: true }
          : noRelationship(`serviceaccount ${namespace}/${name}`);
      }
      default:
        return { decision: NO_OPINION, relational: false };
    }
  }

  return {
    name: "Node",
    async authorize(user: UserInfo, attributes: Attributes) {
      const node = nodeIdentity(user);
      if (node === undefined || attributes.kind !== "resource" || attributes.group !== "") return NO_OPINION;
      const first = decide(node, attributes);
      if (first.decision.kind === "allow" || !first.relational || freshness.isCurrent()) return first.decision;
      if (!(await freshness.waitForCurrent(waitMs))) return first.decision;
      return decide(node, attributes).decision;
    },
  };
}
