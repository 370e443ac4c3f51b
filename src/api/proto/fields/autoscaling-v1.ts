import type { ProtoMessages } from "../messages.js";

/** autoscaling/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const AUTOSCALING_V1: ProtoMessages = {
  "autoscaling.v1.CrossVersionObjectReference": "kind=1 name=2 apiVersion=3",
  "autoscaling.v1.HorizontalPodAutoscaler":
    "metadata=1:meta.v1.ObjectMeta spec=2:autoscaling.v1.HorizontalPodAutoscalerSpec status=3:autoscaling.v1.HorizontalPodAutoscalerStatus",
  "autoscaling.v1.HorizontalPodAutoscalerSpec":
    "scaleTargetRef=1:autoscaling.v1.CrossVersionObjectReference minReplicas=2 maxReplicas=3 targetCPUUtilizationPercentage=4",
  "autoscaling.v1.HorizontalPodAutoscalerStatus":
    "observedGeneration=1 lastScaleTime=2:meta.v1.Time currentReplicas=3 desiredReplicas=4 currentCPUUtilizationPercentage=5",
  "autoscaling.v1.Scale": "metadata=1:meta.v1.ObjectMeta spec=2:autoscaling.v1.ScaleSpec status=3:autoscaling.v1.ScaleStatus",
  "autoscaling.v1.ScaleSpec": "replicas=1",
  "autoscaling.v1.ScaleStatus": "replicas=1 selector=2",
};
