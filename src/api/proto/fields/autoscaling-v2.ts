import type { ProtoMessages } from "../messages.js";

/** autoscaling/v2 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const AUTOSCALING_V2: ProtoMessages = {
  "autoscaling.v2.ContainerResourceMetricSource": "name=1 target=2:autoscaling.v2.MetricTarget container=3",
  "autoscaling.v2.ContainerResourceMetricStatus": "name=1 current=2:autoscaling.v2.MetricValueStatus container=3",
  "autoscaling.v2.CrossVersionObjectReference": "kind=1 name=2 apiVersion=3",
  "autoscaling.v2.ExternalMetricSource": "metric=1:autoscaling.v2.MetricIdentifier target=2:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ExternalMetricStatus": "metric=1:autoscaling.v2.MetricIdentifier current=2:autoscaling.v2.MetricValueStatus",
  "autoscaling.v2.HPAScalingPolicy": "type=1 value=2 periodSeconds=3",
  "autoscaling.v2.HPAScalingRules": "stabilizationWindowSeconds=3 selectPolicy=1 policies=2:autoscaling.v2.HPAScalingPolicy tolerance=4:resource.Quantity",
  "autoscaling.v2.HorizontalPodAutoscaler":
    "metadata=1:meta.v1.ObjectMeta spec=2:autoscaling.v2.HorizontalPodAutoscalerSpec status=3:autoscaling.v2.HorizontalPodAutoscalerStatus",
  "autoscaling.v2.HorizontalPodAutoscalerBehavior": "scaleUp=1:autoscaling.v2.HPAScalingRules scaleDown=2:autoscaling.v2.HPAScalingRules",
  "autoscaling.v2.HorizontalPodAutoscalerCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "autoscaling.v2.HorizontalPodAutoscalerSpec":
    "scaleTargetRef=1:autoscaling.v2.CrossVersionObjectReference minReplicas=2 maxReplicas=3 metrics=4:autoscaling.v2.MetricSpec behavior=5:autoscaling.v2.HorizontalPodAutoscalerBehavior",
  "autoscaling.v2.HorizontalPodAutoscalerStatus":
    "observedGeneration=1 lastScaleTime=2:meta.v1.Time currentReplicas=3 desiredReplicas=4 currentMetrics=5:autoscaling.v2.MetricStatus conditions=6:autoscaling.v2.HorizontalPodAutoscalerCondition",
  "autoscaling.v2.MetricIdentifier": "name=1 selector=2:meta.v1.LabelSelector",
  "autoscaling.v2.MetricSpec":
    "type=1 object=2:autoscaling.v2.ObjectMetricSource pods=3:autoscaling.v2.PodsMetricSource resource=4:autoscaling.v2.ResourceMetricSource containerResource=7:autoscaling.v2.ContainerResourceMetricSource external=5:autoscaling.v2.ExternalMetricSource",
  "autoscaling.v2.MetricStatus":
    "type=1 object=2:autoscaling.v2.ObjectMetricStatus pods=3:autoscaling.v2.PodsMetricStatus resource=4:autoscaling.v2.ResourceMetricStatus containerResource=7:autoscaling.v2.ContainerResourceMetricStatus external=5:autoscaling.v2.ExternalMetricStatus",
  "autoscaling.v2.MetricTarget": "type=1 value=2:resource.Quantity averageValue=3:resource.Quantity averageUtilization=4",
  "autoscaling.v2.MetricValueStatus": "value=1:resource.Quantity averageValue=2:resource.Quantity averageUtilization=3",
  "autoscaling.v2.ObjectMetricSource":
    "describedObject=1:autoscaling.v2.CrossVersionObjectReference target=2:autoscaling.v2.MetricTarget metric=3:autoscaling.v2.MetricIdentifier",
  "autoscaling.v2.ObjectMetricStatus":
    "metric=1:autoscaling.v2.MetricIdentifier current=2:autoscaling.v2.MetricValueStatus describedObject=3:autoscaling.v2.CrossVersionObjectReference",
  "autoscaling.v2.PodsMetricSource": "metric=1:autoscaling.v2.MetricIdentifier target=2:autoscaling.v2.MetricTarget",
  "autoscaling.v2.PodsMetricStatus": "metric=1:autoscaling.v2.MetricIdentifier current=2:autoscaling.v2.MetricValueStatus",
  "autoscaling.v2.ResourceMetricSource": "name=1 target=2:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ResourceMetricStatus": "name=1 current=2:autoscaling.v2.MetricValueStatus",
};
