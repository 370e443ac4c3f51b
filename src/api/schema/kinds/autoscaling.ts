import { atomic, enumOf, int32, int64, labelSelector, listMap, obj, quantity, ref, req, str, time, withDefault, atLeast, type SchemaNode } from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** autoscaling/v2 (storage) and autoscaling/v1 HorizontalPodAutoscaler; autoscaling/v1 Scale (the `scale` sub-resource's kind). */

const scaleTarget = (): SchemaNode => ref("autoscaling.v2.CrossVersionObjectReference", "The resource to scale.");
const minReplicas = (): SchemaNode => withDefault(atLeast(int32("Lower limit of replicas. Defaults to 1."), 1), 1);
const target = (): SchemaNode => ref("autoscaling.v2.MetricTarget");
const current = (): SchemaNode => ref("autoscaling.v2.MetricValueStatus");
const metric = (): SchemaNode => ref("autoscaling.v2.MetricIdentifier");
const METRIC_TYPE = enumOf(["ContainerResource", "External", "Object", "Pods", "Resource"]);

export const AUTOSCALING_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "autoscaling.v2.CrossVersionObjectReference": obj({ apiVersion: str(), kind: req(str()), name: req(str()) }, { mapType: "atomic" }),
  "autoscaling.v2.HorizontalPodAutoscaler": resource("HorizontalPodAutoscaler scales a resource's replicas from observed metrics.", {
    spec: obj({
      behavior: obj({ scaleDown: ref("autoscaling.v2.HPAScalingRules"), scaleUp: ref("autoscaling.v2.HPAScalingRules") }),
      maxReplicas: req(int32("Upper limit of replicas.")),
      metrics: atomic(ref("autoscaling.v2.MetricSpec")),
      minReplicas: minReplicas(),
      scaleTargetRef: req(scaleTarget()),
    }),
    status: obj({
      conditions: listMap(ref("autoscaling.v2.HorizontalPodAutoscalerCondition"), ["type"], { patch: true }),
      currentMetrics: atomic(ref("autoscaling.v2.MetricStatus")),
      currentReplicas: int32(),
      desiredReplicas: int32(),
      lastScaleTime: time(),
      observedGeneration: int64(),
    }),
  }),
  "autoscaling.v2.HPAScalingRules": obj({
    policies: atomic(obj({ periodSeconds: req(int32()), type: req(str()), value: req(int32()) })),
    selectPolicy: str(),
    stabilizationWindowSeconds: int32(),
  }),
  "autoscaling.v2.MetricSpec": obj({
    containerResource: obj({ container: req(str()), name: req(str()), target: req(target()) }),
    external: obj({ metric: req(metric()), target: req(target()) }),
    object: obj({ describedObject: req(scaleTarget()), metric: req(metric()), target: req(target()) }),
    pods: obj({ metric: req(metric()), target: req(target()) }),
    resource: obj({ name: req(str()), target: req(target()) }),
    type: req(METRIC_TYPE),
  }),
  "autoscaling.v2.MetricStatus": obj({
    containerResource: obj({ container: req(str()), current: req(current()), name: req(str()) }),
    external: obj({ current: req(current()), metric: req(metric()) }),
    object: obj({ current: req(current()), describedObject: req(scaleTarget()), metric: req(metric()) }),
    pods: obj({ current: req(current()), metric: req(metric()) }),
    resource: obj({ current: req(current()), name: req(str()) }),
    type: req(METRIC_TYPE),
  }),
  "autoscaling.v2.MetricIdentifier": obj({ name: req(str()), selector: labelSelector() }),
  "autoscaling.v2.MetricTarget": obj({ averageUtilization: int32(), averageValue: quantity(), type: req(str()), value: quantity() }),
  "autoscaling.v2.MetricValueStatus": obj({ averageUtilization: int32(), averageValue: quantity(), value: quantity() }),
  "autoscaling.v2.HorizontalPodAutoscalerCondition": obj({ lastTransitionTime: time(), message: str(), reason: str(), status: req(str()), type: req(str()) }),
  "autoscaling.v1.HorizontalPodAutoscaler": resource("HorizontalPodAutoscaler (v1): scales on CPU utilization only; other metrics travel in annotations.", {
    spec: obj({
      maxReplicas: req(int32("Upper limit of replicas.")),
      minReplicas: minReplicas(),
      scaleTargetRef: req(scaleTarget()),
      targetCPUUtilizationPercentage: int32(),
    }),
    status: obj({
      currentCPUUtilizationPercentage: int32(),
      currentReplicas: int32(),
      desiredReplicas: int32(),
      lastScaleTime: time(),
      observedGeneration: int64(),
    }),
  }),
  "autoscaling.v1.Scale": resource("Scale represents a scaling request for a resource.", {
    spec: ref("autoscaling.v1.ScaleSpec", "The desired state of the scale."),
    status: ref("autoscaling.v1.ScaleStatus", "The observed state of the scale. Read-only."),
  }),
  "autoscaling.v1.ScaleSpec": obj(
    { replicas: atLeast(int32("The desired number of instances of the scaled object."), 0) },
    { description: "ScaleSpec describes the attributes of a scale sub-resource." },
  ),
  "autoscaling.v1.ScaleStatus": obj(
    {
      replicas: req(int32("The observed number of instances of the scaled object.")),
      selector: str("The label query over pods that should match the replica count, in the query-parameter syntax of label selectors."),
    },
    { description: "ScaleStatus represents the current status of a scale sub-resource." },
  ),
};

export const AUTOSCALING_KINDS: readonly KindDeclaration[] = [
  { group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", id: "autoscaling.v2.HorizontalPodAutoscaler" },
  { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler", id: "autoscaling.v1.HorizontalPodAutoscaler" },
  { group: "autoscaling", version: "v1", kind: "Scale", id: "autoscaling.v1.Scale" },
];
