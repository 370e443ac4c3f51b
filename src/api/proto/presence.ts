/**
 * Scalar fields whose zero value (`""`, `0`, `false`) means something: Go pointers (`*int32`,
 * `*bool`, `*string`) and fields whose JSON tag has no `omitempty`. Facts about kube.s Go API
 * types, one line of proto field names per message.
 *
 * Why: kube's messages are proto2 written by Go, where every non-pointer scalar is written even
 * when zero. A decoder that kept every zero would fill objects with `generateName: ""`,
 * `generation: 0`…, which kube (JSON `omitempty`) never shows; one that dropped every zero would
 * lose `replicas: 0` or `automountServiceAccountToken: false`. So a zero scalar read from the wire
 * is kept only for the fields listed here, as Go's own decoding then JSON encoding would.
 * Lists and maps never carry a zero (an empty one is not on the wire); messages are always kept.
 */
export const ZERO_KEPT: Readonly<Record<string, string>> = {
  "meta.v1.ObjectMeta": "deletionGracePeriodSeconds",
  "meta.v1.ListMeta": "remainingItemCount",
  "meta.v1.OwnerReference": "apiVersion kind name uid controller blockOwnerDeletion",
  "meta.v1.DeleteOptions": "gracePeriodSeconds orphanDependents propagationPolicy",
  "meta.v1.Preconditions": "uid resourceVersion",
  "meta.v1.Condition": "type status reason message",
  "meta.v1.LabelSelectorRequirement": "key operator",

  "core.v1.PodSpec":
    "terminationGracePeriodSeconds activeDeadlineSeconds automountServiceAccountToken shareProcessNamespace priority enableServiceLinks " +
    "preemptionPolicy setHostnameAsFQDN hostUsers runtimeClassName",
  "core.v1.Container": "name restartPolicy",
  "core.v1.EphemeralContainerCommon": "name restartPolicy",
  "core.v1.ContainerPort": "containerPort",
  "core.v1.SecurityContext": "privileged runAsUser runAsGroup runAsNonRoot readOnlyRootFilesystem allowPrivilegeEscalation procMount",
  "core.v1.PodSecurityContext": "runAsUser runAsGroup runAsNonRoot fsGroup fsGroupChangePolicy supplementalGroupsPolicy",
  "core.v1.ServiceAccount": "automountServiceAccountToken",
  "core.v1.Secret": "immutable",
  "core.v1.ConfigMap": "immutable",
  "core.v1.ConfigMapVolumeSource": "defaultMode optional",
  "core.v1.SecretVolumeSource": "defaultMode optional",
  "core.v1.ConfigMapKeySelector": "key optional",
  "core.v1.SecretKeySelector": "key optional",
  "core.v1.ConfigMapEnvSource": "optional",
  "core.v1.SecretEnvSource": "optional",
  "core.v1.ConfigMapProjection": "optional",
  "core.v1.SecretProjection": "optional",
  "core.v1.KeyToPath": "key path mode",
  "core.v1.ProjectedVolumeSource": "defaultMode",
  "core.v1.DownwardAPIVolumeSource": "defaultMode",
  "core.v1.DownwardAPIVolumeFile": "path mode",
  "core.v1.ServiceAccountTokenProjection": "expirationSeconds path",
  "core.v1.CSIVolumeSource": "driver readOnly",
  "core.v1.EnvVar": "name",
  "core.v1.Volume": "name",
  "core.v1.VolumeMount": "name mountPath recursiveReadOnly mountPropagation",
  "core.v1.ServiceSpec": "allocateLoadBalancerNodePorts ipFamilyPolicy loadBalancerClass internalTrafficPolicy trafficDistribution",
  "core.v1.ServicePort": "port appProtocol",
  "core.v1.ContainerStatus": "name ready restartCount image imageID started",
  "core.v1.PodCondition": "type status",
  "core.v1.NodeCondition": "type status",
  "core.v1.NamespaceCondition": "type status",
  "core.v1.ReplicationControllerSpec": "replicas",
  "core.v1.ReplicationControllerStatus": "replicas",
  "core.v1.PersistentVolumeClaimSpec": "storageClassName volumeMode volumeAttributesClassName",
  "core.v1.EndpointPort": "port appProtocol",
  "core.v1.EndpointAddress": "ip nodeName",
  "core.v1.TopologySpreadConstraint": "maxSkew topologyKey whenUnsatisfiable minDomains nodeAffinityPolicy nodeTaintsPolicy",
  "core.v1.Toleration": "tolerationSeconds",
  "core.v1.WeightedPodAffinityTerm": "weight",
  "core.v1.PreferredSchedulingTerm": "weight",
  "core.v1.NodeSelectorRequirement": "key operator",
  "core.v1.ObjectFieldSelector": "fieldPath",
  "core.v1.HTTPHeader": "name value",
  "core.v1.Taint": "key effect",
  "core.v1.WindowsSecurityContextOptions": "gmsaCredentialSpecName gmsaCredentialSpec runAsUserName hostProcess",
  "core.v1.SeccompProfile": "type localhostProfile",
  "core.v1.AppArmorProfile": "type localhostProfile",
  "core.v1.HostAlias": "ip",
  "core.v1.ResourceFieldSelector": "resource",
  "core.v1.ResourceClaim": "name",
  "core.v1.ContainerResizePolicy": "resourceName restartPolicy",
  "core.v1.Probe": "terminationGracePeriodSeconds",
  "core.v1.GRPCAction": "port service",
  "core.v1.SleepAction": "seconds",
  "core.v1.ContainerStateTerminated": "exitCode",
  "core.v1.HostPathVolumeSource": "path type",
  "core.v1.PodAffinityTerm": "topologyKey",
  "core.v1.NodeSystemInfo":
    "machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion kubeletVersion kubeProxyVersion operatingSystem architecture",
  "core.v1.DaemonEndpoint": "Port",
  "core.v1.NodeAddress": "type address",

  "apps.v1.DeploymentSpec": "replicas revisionHistoryLimit progressDeadlineSeconds",
  "apps.v1.DeploymentStatus": "collisionCount terminatingReplicas",
  "apps.v1.ReplicaSetSpec": "replicas",
  "apps.v1.ReplicaSetStatus": "replicas terminatingReplicas",
  "apps.v1.StatefulSetSpec": "replicas revisionHistoryLimit",
  "apps.v1.StatefulSetStatus": "replicas collisionCount availableReplicas",
  "apps.v1.RollingUpdateStatefulSetStrategy": "partition",
  "apps.v1.StatefulSetOrdinals": "start",
  "apps.v1.DaemonSetSpec": "revisionHistoryLimit",
  "apps.v1.DaemonSetStatus": "currentNumberScheduled numberMisscheduled desiredNumberScheduled numberReady collisionCount",
  "apps.v1.ControllerRevision": "revision",

  "batch.v1.JobSpec":
    "parallelism completions activeDeadlineSeconds backoffLimit backoffLimitPerIndex maxFailedIndexes ttlSecondsAfterFinished manualSelector " +
    "suspend completionMode podReplacementPolicy managedBy",
  "batch.v1.JobStatus": "ready terminating failedIndexes",
  "batch.v1.CronJobSpec": "schedule startingDeadlineSeconds suspend successfulJobsHistoryLimit failedJobsHistoryLimit timeZone",

  "autoscaling.v1.HorizontalPodAutoscalerSpec": "minReplicas maxReplicas targetCPUUtilizationPercentage",
  "autoscaling.v1.HorizontalPodAutoscalerStatus": "observedGeneration currentReplicas desiredReplicas currentCPUUtilizationPercentage",
  "autoscaling.v1.ScaleStatus": "replicas",
  "autoscaling.v2.HorizontalPodAutoscalerSpec": "minReplicas maxReplicas",
  "autoscaling.v2.HorizontalPodAutoscalerStatus": "observedGeneration desiredReplicas",
  "autoscaling.v2.MetricTarget": "averageUtilization",
  "autoscaling.v2.HPAScalingRules": "stabilizationWindowSeconds selectPolicy",
  "autoscaling.v2.HPAScalingPolicy": "type value periodSeconds",

  "policy.v1.PodDisruptionBudgetSpec": "unhealthyPodEvictionPolicy",
  "policy.v1.PodDisruptionBudgetStatus": "disruptionsAllowed currentHealthy desiredHealthy expectedPods",

  "authorization.v1.SubjectAccessReviewStatus": "allowed",
  "authorization.v1.SubjectRulesReviewStatus": "incomplete",
  "authentication.v1.TokenRequestSpec": "expirationSeconds",
  "authentication.v1.TokenRequestStatus": "token",
  "rbac.v1.RoleRef": "apiGroup kind name",
  "rbac.v1.Subject": "kind name",
  "scheduling.v1.PriorityClass": "value preemptionPolicy",
  "networking.v1.IngressSpec": "ingressClassName",
  "networking.v1.HTTPIngressPath": "pathType",
  "networking.v1.NetworkPolicyPort": "protocol endPort",
  "coordination.v1.LeaseSpec": "holderIdentity leaseDurationSeconds leaseTransitions strategy preferredHolder",
  "discovery.v1.EndpointConditions": "ready serving terminating",
  "discovery.v1.Endpoint": "hostname nodeName zone",
  "discovery.v1.EndpointPort": "name protocol port appProtocol",
  "discovery.v1.EndpointSlice": "addressType",
  "storage.v1.StorageClass": "provisioner reclaimPolicy allowVolumeExpansion volumeBindingMode",
  "storage.v1.CSIDriverSpec": "attachRequired podInfoOnMount storageCapacity requiresRepublish seLinuxMount fsGroupPolicy",
  "storage.v1.VolumeAttachmentStatus": "attached",
  "certificates.v1.CertificateSigningRequestSpec": "signerName expirationSeconds",
  "admissionregistration.v1.MutatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds reinvocationPolicy",
  "admissionregistration.v1.ValidatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds",
  "admissionregistration.v1.ServiceReference": "namespace name path port",
  "admissionregistration.v1.WebhookClientConfig": "url",
  "admissionregistration.v1.Rule": "scope",
  "node.v1.RuntimeClass": "handler",
  "events.v1.EventSeries": "count",
  "apiextensions.v1.CustomResourceDefinitionVersion": "name served storage deprecationWarning",
  "apiextensions.v1.CustomResourceSubresourceScale": "specReplicasPath statusReplicasPath labelSelectorPath",
  "apiextensions.v1.ServiceReference": "namespace name path port",
  "apiextensions.v1.WebhookClientConfig": "url",
  "apiextensions.v1.JSONSchemaProps":
    "maximum minimum maxLength minLength maxItems minItems maxProperties minProperties multipleOf xKubernetesPreserveUnknownFields xKubernetesListType xKubernetesMapType",
};

let parsed: ReadonlyMap<string, ReadonlySet<string>> | undefined;

/** `ZERO_KEPT` as sets by message id. */
export function zeroKeptFields(): ReadonlyMap<string, ReadonlySet<string>> {
  parsed ??= new Map(Object.entries(ZERO_KEPT).map(([id, names]) => [id, new Set(names.split(/\s+/).filter((name) => name !== ""))]));
  return parsed;
}
