import type { ProtoMessages } from "../messages.js";

/** scheduling/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const SCHEDULING_V1: ProtoMessages = {
  "scheduling.v1.PriorityClass": "metadata=1:meta.v1.ObjectMeta value=2 globalDefault=3 description=4 preemptionPolicy=5",
};
