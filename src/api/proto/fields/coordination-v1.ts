import type { ProtoMessages } from "../messages.js";

/** coordination/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const COORDINATION_V1: ProtoMessages = {
  "coordination.v1.Lease": "metadata=1:meta.v1.ObjectMeta spec=2:coordination.v1.LeaseSpec",
  "coordination.v1.LeaseSpec":
    "holderIdentity=1 leaseDurationSeconds=2 acquireTime=3:meta.v1.MicroTime renewTime=4:meta.v1.MicroTime leaseTransitions=5 strategy=6 preferredHolder=7",
};
