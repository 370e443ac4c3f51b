import type { ProtoMessages } from "../messages.js";

/** discovery/v1beta1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const DISCOVERY_V1BETA1: ProtoMessages = {
  "discovery.v1beta1.Endpoint":
    "addresses=1 conditions=2:discovery.v1beta1.EndpointConditions hostname=3 targetRef=4:core.v1.ObjectReference topology=5 nodeName=6 hints=7:discovery.v1beta1.EndpointHints",
  "discovery.v1beta1.EndpointConditions": "ready=1 serving=2 terminating=3",
  "discovery.v1beta1.EndpointHints": "forZones=1:discovery.v1beta1.ForZone",
  "discovery.v1beta1.EndpointPort": "name=1 protocol=2 port=3 appProtocol=4",
  "discovery.v1beta1.EndpointSlice":
    "metadata=1:meta.v1.ObjectMeta addressType=4 endpoints=2:discovery.v1beta1.Endpoint ports=3:discovery.v1beta1.EndpointPort",
  "discovery.v1beta1.ForZone": "name=1",
};
