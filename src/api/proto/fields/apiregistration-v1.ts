import type { ProtoMessages } from "../messages.js";

/** apiregistration/v1 messages: each field's wire number, and for message-typed fields the message (element message for repeated fields). */
export const APIREGISTRATION_V1: ProtoMessages = {
  "apiregistration.v1.APIService": "metadata=1:meta.v1.ObjectMeta spec=2:apiregistration.v1.APIServiceSpec status=3:apiregistration.v1.APIServiceStatus",
  "apiregistration.v1.APIServiceCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "apiregistration.v1.APIServiceSpec":
    "service=1:apiregistration.v1.ServiceReference group=2 version=3 insecureSkipTLSVerify=4 caBundle=5 groupPriorityMinimum=7 versionPriority=8",
  "apiregistration.v1.APIServiceStatus": "conditions=1:apiregistration.v1.APIServiceCondition",
  "apiregistration.v1.ServiceReference": "namespace=1 name=2 port=3",
};
