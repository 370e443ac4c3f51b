import type { ProtoMessages } from "../messages.js";

/** node/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const NODE_V1: ProtoMessages = {
  "node.v1.Overhead": "podFixed=1:resource.Quantity",
  "node.v1.RuntimeClass": "metadata=1:meta.v1.ObjectMeta handler=2 overhead=3:node.v1.Overhead scheduling=4:node.v1.Scheduling",
  "node.v1.Scheduling": "nodeSelector=1 tolerations=2:core.v1.Toleration",
};
