import type { ProtoMessages } from "../messages.js";

/** events/v1beta1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const EVENTS_V1BETA1: ProtoMessages = {
  "events.v1beta1.Event":
    "metadata=1:meta.v1.ObjectMeta eventTime=2:meta.v1.MicroTime series=3:events.v1beta1.EventSeries reportingController=4 reportingInstance=5 action=6 reason=7 regarding=8:core.v1.ObjectReference related=9:core.v1.ObjectReference note=10 type=11 deprecatedSource=12:core.v1.EventSource deprecatedFirstTimestamp=13:meta.v1.Time deprecatedLastTimestamp=14:meta.v1.Time deprecatedCount=15",
  "events.v1beta1.EventSeries": "count=1 lastObservedTime=2:meta.v1.MicroTime",
};
