import type { ProtoMessages } from "../messages.js";

/** policy/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const POLICY_V1: ProtoMessages = {
  "policy.v1.Eviction": "metadata=1:meta.v1.ObjectMeta deleteOptions=2:meta.v1.DeleteOptions",
  "policy.v1.PodDisruptionBudget": "metadata=1:meta.v1.ObjectMeta spec=2:policy.v1.PodDisruptionBudgetSpec status=3:policy.v1.PodDisruptionBudgetStatus",
  "policy.v1.PodDisruptionBudgetSpec":
    "minAvailable=1:intstr.IntOrString selector=2:meta.v1.LabelSelector maxUnavailable=3:intstr.IntOrString unhealthyPodEvictionPolicy=4",
  "policy.v1.PodDisruptionBudgetStatus":
    "observedGeneration=1 disruptedPods=2:meta.v1.Time disruptionsAllowed=3 currentHealthy=4 desiredHealthy=5 expectedPods=6 conditions=7:meta.v1.Condition",
};
