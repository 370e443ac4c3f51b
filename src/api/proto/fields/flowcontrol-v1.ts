import type { ProtoMessages } from "../messages.js";

/** flowcontrol/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const FLOWCONTROL_V1: ProtoMessages = {
  "flowcontrol.v1.ExemptPriorityLevelConfiguration": "nominalConcurrencyShares=1 lendablePercent=2",
  "flowcontrol.v1.FlowDistinguisherMethod": "type=1",
  "flowcontrol.v1.FlowSchema": "metadata=1:meta.v1.ObjectMeta spec=2:flowcontrol.v1.FlowSchemaSpec status=3:flowcontrol.v1.FlowSchemaStatus",
  "flowcontrol.v1.FlowSchemaCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "flowcontrol.v1.FlowSchemaSpec":
    "priorityLevelConfiguration=1:flowcontrol.v1.PriorityLevelConfigurationReference matchingPrecedence=2 distinguisherMethod=3:flowcontrol.v1.FlowDistinguisherMethod rules=4:flowcontrol.v1.PolicyRulesWithSubjects",
  "flowcontrol.v1.FlowSchemaStatus": "conditions=1:flowcontrol.v1.FlowSchemaCondition",
  "flowcontrol.v1.GroupSubject": "name=1",
  "flowcontrol.v1.LimitResponse": "type=1 queuing=2:flowcontrol.v1.QueuingConfiguration",
  "flowcontrol.v1.LimitedPriorityLevelConfiguration":
    "nominalConcurrencyShares=1 limitResponse=2:flowcontrol.v1.LimitResponse lendablePercent=3 borrowingLimitPercent=4",
  "flowcontrol.v1.NonResourcePolicyRule": "verbs=1 nonResourceURLs=6",
  "flowcontrol.v1.PolicyRulesWithSubjects":
    "subjects=1:flowcontrol.v1.Subject resourceRules=2:flowcontrol.v1.ResourcePolicyRule nonResourceRules=3:flowcontrol.v1.NonResourcePolicyRule",
  "flowcontrol.v1.PriorityLevelConfiguration":
    "metadata=1:meta.v1.ObjectMeta spec=2:flowcontrol.v1.PriorityLevelConfigurationSpec status=3:flowcontrol.v1.PriorityLevelConfigurationStatus",
  "flowcontrol.v1.PriorityLevelConfigurationCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "flowcontrol.v1.PriorityLevelConfigurationReference": "name=1",
  "flowcontrol.v1.PriorityLevelConfigurationSpec":
    "type=1 limited=2:flowcontrol.v1.LimitedPriorityLevelConfiguration exempt=3:flowcontrol.v1.ExemptPriorityLevelConfiguration",
  "flowcontrol.v1.PriorityLevelConfigurationStatus": "conditions=1:flowcontrol.v1.PriorityLevelConfigurationCondition",
  "flowcontrol.v1.QueuingConfiguration": "queues=1 handSize=2 queueLengthLimit=3",
  "flowcontrol.v1.ResourcePolicyRule": "verbs=1 apiGroups=2 resources=3 clusterScope=4 namespaces=5",
  "flowcontrol.v1.ServiceAccountSubject": "namespace=1 name=2",
  "flowcontrol.v1.Subject":
    "kind=1 user=2:flowcontrol.v1.UserSubject group=3:flowcontrol.v1.GroupSubject serviceAccount=4:flowcontrol.v1.ServiceAccountSubject",
  "flowcontrol.v1.UserSubject": "name=1",
};

/** flowcontrol/v1beta3: the same messages and wire numbers as v1 (kube's generated.proto). */
export const FLOWCONTROL_V1BETA3: ProtoMessages = Object.fromEntries(
  Object.entries(FLOWCONTROL_V1).map(([id, fields]) => [
    id.replace("flowcontrol.v1.", "flowcontrol.v1beta3."),
    fields.replaceAll(":flowcontrol.v1.", ":flowcontrol.v1beta3."),
  ]),
);
