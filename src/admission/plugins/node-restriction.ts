import { denied } from "../deny.js";
import type { PluginContext } from "../context.js";
import type { AdmissionPlugin } from "../interface.js";
import { recordOf, stringOf } from "./pod-spec.js";
import { mirrorPodAnnotation } from "../../api/schema/rules/pods.js";

const NODE_PREFIX = "system:node:";
const NODES_GROUP = "system:nodes";

/**
 * NodeRestriction: a node agent (`system:node:<name>` in `system:nodes`) may create only mirror
 * pods bound to itself, change or delete only pods bound to itself, write only its own Node, never
 * delete Nodes, and never set or change labels under `node-restriction.<keyDomain>/`.
 */
export function nodeRestriction(context: PluginContext): AdmissionPlugin {
  const mirror = mirrorPodAnnotation(context.names.keyDomain);
  const restricted = context.names.nodeRestrictionLabelPrefix;
  return {
    name: "NodeRestriction",
    resources: new Set(["pods", "nodes"]),
    // As kube: writes only; a node's connect requests (exec, attach) are authorization's business.
    handles: (operation) => operation !== "CONNECT",
    async validate(attributes) {
      const user = attributes.user;
      if (user === undefined || !user.name.startsWith(NODE_PREFIX) || !user.groups.includes(NODES_GROUP) || attributes.resource.group !== "") return;
      const self = user.name.slice(NODE_PREFIX.length);
      if (attributes.resource.resource === "pods") {
        const pod = attributes.object ?? attributes.oldObject;
        const nodeName = stringOf(recordOf(pod?.["spec"])["nodeName"]);
        if (attributes.operation === "CREATE" && attributes.subresource === "") {
          if (pod?.metadata.annotations?.[mirror] === undefined)
            throw denied(attributes, `pod does not have "${mirror}" annotation, node "${self}" can only create mirror pods`);
          if (nodeName !== self) throw denied(attributes, `node "${self}" can only create pods with spec.nodeName set to itself`);
          return;
        }
        if (attributes.subresource === "eviction") return;
        if (nodeName !== self) throw denied(attributes, `node "${self}" can only ${attributes.operation.toLowerCase()} pods with spec.nodeName set to itself`);
        return;
      }
      if (attributes.operation === "DELETE") throw denied(attributes, `node "${self}" is not allowed to delete nodes`);
      if (attributes.name !== self) throw denied(attributes, `node "${self}" is not allowed to modify node "${attributes.name}"`);
      const labels = attributes.object?.metadata.labels ?? {};
      const oldLabels = attributes.oldObject?.metadata.labels ?? {};
      const changed = new Set([...Object.keys(labels), ...Object.keys(oldLabels)].filter((key) => labels[key] !== oldLabels[key]));
      const forbidden = [...changed].filter((key) => key.startsWith(restricted)).sort();
      if (forbidden.length > 0) throw denied(attributes, `is not allowed to modify labels: ${forbidden.join(", ")}`);
    },
  };
}
