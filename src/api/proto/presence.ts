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
 *
 * Compared struct by struct with kube's Go API types of every served group (sweep 13 of
 * docs/parity-sweep-2026-11-27.md): every pointer scalar and every scalar whose tag lacks
 * `omitempty` of a message listed in `fields/` is here. A served beta or alpha version's message
 * of the same name carries the same entries as its v1 one (kube declares them alike).
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
    "terminationGracePeriodSeconds activeDeadlineSeconds automountServiceAccountToken shareProcessNamespace " +
    "priority enableServiceLinks preemptionPolicy setHostnameAsFQDN hostUsers runtimeClassName",
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
  "core.v1.CSIVolumeSource": "driver readOnly fsType",
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
    "machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion " + "kubeletVersion kubeProxyVersion operatingSystem architecture",
  "core.v1.DaemonEndpoint": "Port",
  "core.v1.NodeAddress": "type address",
  "core.v1.PersistentVolumeClaimVolumeSource": "claimName",
  "core.v1.PersistentVolumeSpec": "volumeMode volumeAttributesClassName",
  "core.v1.TypedObjectReference": "apiGroup kind name namespace",
  "core.v1.ModifyVolumeStatus": "status",
  "core.v1.PersistentVolumeClaimCondition": "type status",
  "core.v1.PersistentVolumeClaimStatus": "currentVolumeAttributesClassName",
  "core.v1.GlusterfsVolumeSource": "endpoints path",
  "core.v1.GlusterfsPersistentVolumeSource": "endpoints path endpointsNamespace",
  "core.v1.RBDVolumeSource": "image",
  "core.v1.RBDPersistentVolumeSource": "image",
  "core.v1.CinderVolumeSource": "volumeID",
  "core.v1.CinderPersistentVolumeSource": "volumeID",
  "core.v1.GCEPersistentDiskVolumeSource": "pdName",
  "core.v1.QuobyteVolumeSource": "registry volume",
  "core.v1.FlexPersistentVolumeSource": "driver",
  "core.v1.FlexVolumeSource": "driver",
  "core.v1.AWSElasticBlockStoreVolumeSource": "volumeID",
  "core.v1.GitRepoVolumeSource": "repository",
  "core.v1.NFSVolumeSource": "server path",
  "core.v1.ISCSIVolumeSource": "targetPortal iqn lun initiatorName",
  "core.v1.ISCSIPersistentVolumeSource": "targetPortal iqn lun initiatorName",
  "core.v1.FCVolumeSource": "lun",
  "core.v1.AzureFileVolumeSource": "secretName shareName",
  "core.v1.AzureFilePersistentVolumeSource": "secretName shareName secretNamespace",
  "core.v1.VsphereVirtualDiskVolumeSource": "volumePath",
  "core.v1.PhotonPersistentDiskVolumeSource": "pdID",
  "core.v1.AzureDiskVolumeSource": "diskName diskURI cachingMode fsType readOnly kind",
  "core.v1.PortworxVolumeSource": "volumeID",
  "core.v1.ScaleIOVolumeSource": "gateway system",
  "core.v1.ScaleIOPersistentVolumeSource": "gateway system",
  "core.v1.ClusterTrustBundleProjection": "name signerName optional path",
  "core.v1.LocalVolumeSource": "path fsType",
  "core.v1.CSIPersistentVolumeSource": "driver volumeHandle",
  "core.v1.VolumeDevice": "name devicePath",
  "core.v1.TopologySelectorLabelRequirement": "key",
  "core.v1.PodReadinessGate": "conditionType",
  "core.v1.PodResourceClaim": "name",
  "core.v1.ClaimSource": "resourceClaimName resourceClaimTemplateName",
  "core.v1.PodResourceClaimStatus": "name resourceClaimName",
  "core.v1.PodOS": "name",
  "core.v1.PodSchedulingGate": "name",
  "core.v1.PodDNSConfigOption": "value",
  "core.v1.ReplicationControllerCondition": "type status",
  "core.v1.ClientIPConfig": "timeoutSeconds",
  "core.v1.LoadBalancerIngress": "ipMode",
  "core.v1.ConfigMapNodeConfigSource": "namespace name kubeletConfigKey",
  "core.v1.AttachedVolume": "name devicePath",
  "core.v1.TypedLocalObjectReference": "apiGroup kind name",
  "core.v1.Event": "reportingComponent reportingInstance",
  "core.v1.LimitRangeItem": "type",
  "core.v1.ScopedResourceSelectorRequirement": "scopeName operator",
  "core.v1.ComponentCondition": "type status",
  "core.v1.Sysctl": "name value",
  "core.v1.PortStatus": "port protocol error",

  "apps.v1.DeploymentSpec": "replicas revisionHistoryLimit progressDeadlineSeconds",
  "apps.v1.DeploymentStatus": "collisionCount terminatingReplicas",
  "apps.v1.ReplicaSetSpec": "replicas",
  "apps.v1.ReplicaSetStatus": "replicas terminatingReplicas",
  "apps.v1.StatefulSetSpec": "replicas revisionHistoryLimit serviceName",
  "apps.v1.StatefulSetStatus": "replicas collisionCount availableReplicas",
  "apps.v1.RollingUpdateStatefulSetStrategy": "partition",
  "apps.v1.StatefulSetOrdinals": "start",
  "apps.v1.DaemonSetSpec": "revisionHistoryLimit",
  "apps.v1.DaemonSetStatus": "currentNumberScheduled numberMisscheduled desiredNumberScheduled numberReady collisionCount",
  "apps.v1.ControllerRevision": "revision",
  "apps.v1.StatefulSetCondition": "type status",
  "apps.v1.DeploymentCondition": "type status",
  "apps.v1.DaemonSetCondition": "type status",
  "apps.v1.ReplicaSetCondition": "type status",

  "batch.v1.JobSpec":
    "parallelism completions activeDeadlineSeconds backoffLimit backoffLimitPerIndex maxFailedIndexes " +
    "ttlSecondsAfterFinished manualSelector suspend completionMode podReplacementPolicy managedBy",
  "batch.v1.JobStatus": "ready terminating failedIndexes",
  "batch.v1.CronJobSpec": "schedule startingDeadlineSeconds suspend successfulJobsHistoryLimit failedJobsHistoryLimit timeZone",
  "batch.v1.PodFailurePolicyOnExitCodesRequirement": "containerName operator",
  "batch.v1.PodFailurePolicyOnPodConditionsPattern": "type status",
  "batch.v1.PodFailurePolicyRule": "action",
  "batch.v1.JobCondition": "type status",
  "batch.v1beta1.CronJobSpec": "schedule startingDeadlineSeconds suspend successfulJobsHistoryLimit failedJobsHistoryLimit timeZone",

  "autoscaling.v1.HorizontalPodAutoscalerSpec": "minReplicas maxReplicas targetCPUUtilizationPercentage",
  "autoscaling.v1.HorizontalPodAutoscalerStatus": "observedGeneration currentReplicas desiredReplicas currentCPUUtilizationPercentage",
  "autoscaling.v1.ScaleStatus": "replicas",
  "autoscaling.v1.CrossVersionObjectReference": "kind name",
  "autoscaling.v2.HorizontalPodAutoscalerSpec": "minReplicas maxReplicas",
  "autoscaling.v2.HorizontalPodAutoscalerStatus": "observedGeneration desiredReplicas",
  "autoscaling.v2.MetricTarget": "averageUtilization type",
  "autoscaling.v2.HPAScalingRules": "stabilizationWindowSeconds selectPolicy",
  "autoscaling.v2.HPAScalingPolicy": "type value periodSeconds",
  "autoscaling.v2.CrossVersionObjectReference": "kind name",
  "autoscaling.v2.MetricSpec": "type",
  "autoscaling.v2.ResourceMetricSource": "name",
  "autoscaling.v2.MetricIdentifier": "name",
  "autoscaling.v2.HorizontalPodAutoscalerCondition": "type status",
  "autoscaling.v2.MetricStatus": "type",
  "autoscaling.v2.ResourceMetricStatus": "name",
  "autoscaling.v2.ContainerResourceMetricStatus": "name container",
  "autoscaling.v2.ContainerResourceMetricSource": "name container",
  "autoscaling.v2.MetricValueStatus": "averageUtilization",

  "policy.v1.PodDisruptionBudgetSpec": "unhealthyPodEvictionPolicy",
  "policy.v1.PodDisruptionBudgetStatus": "disruptionsAllowed currentHealthy desiredHealthy expectedPods",
  "policy.v1beta1.PodDisruptionBudgetSpec": "unhealthyPodEvictionPolicy",
  "policy.v1beta1.PodDisruptionBudgetStatus": "disruptionsAllowed currentHealthy desiredHealthy expectedPods",

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
  "networking.v1.IPBlock": "cidr",
  "networking.v1.IngressPortStatus": "port protocol error",
  "networking.v1.IngressServiceBackend": "name",
  "networking.v1.IngressClassParametersReference": "apiGroup kind name scope namespace",

  "coordination.v1.LeaseSpec": "holderIdentity leaseDurationSeconds leaseTransitions strategy preferredHolder",

  "discovery.v1.EndpointConditions": "ready serving terminating",
  "discovery.v1.Endpoint": "hostname nodeName zone",
  "discovery.v1.EndpointPort": "name protocol port appProtocol",
  "discovery.v1.EndpointSlice": "addressType",
  "discovery.v1.ForZone": "name",
  "discovery.v1beta1.EndpointConditions": "ready serving terminating",
  "discovery.v1beta1.Endpoint": "hostname nodeName",
  "discovery.v1beta1.EndpointPort": "name protocol port appProtocol",
  "discovery.v1beta1.EndpointSlice": "addressType",
  "discovery.v1beta1.ForZone": "name",

  "storage.v1.StorageClass": "provisioner reclaimPolicy allowVolumeExpansion volumeBindingMode",
  "storage.v1.CSIDriverSpec":
    "attachRequired podInfoOnMount storageCapacity requiresRepublish seLinuxMount fsGroupPolicy " +
    "nodeAllocatableUpdatePeriodSeconds serviceAccountTokenInSecrets",
  "storage.v1.VolumeAttachmentStatus": "attached",
  "storage.v1.VolumeAttachmentSpec": "attacher nodeName",
  "storage.v1.VolumeAttachmentSource": "persistentVolumeName",
  "storage.v1.VolumeError": "errorCode",
  "storage.v1.TokenRequest": "audience expirationSeconds",
  "storage.v1.CSINodeDriver": "name nodeID",
  "storage.v1.VolumeNodeResources": "count",

  "certificates.v1.CertificateSigningRequestSpec": "signerName expirationSeconds",
  "certificates.v1.CertificateSigningRequestCondition": "type status",

  "admissionregistration.v1.MutatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds reinvocationPolicy",
  "admissionregistration.v1.ValidatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds",
  "admissionregistration.v1.ServiceReference": "namespace name path port",
  "admissionregistration.v1.WebhookClientConfig": "url",
  "admissionregistration.v1.Rule": "scope",
  "admissionregistration.v1.MatchCondition": "name expression",
  "admissionregistration.v1.ValidatingAdmissionPolicySpec": "failurePolicy",
  "admissionregistration.v1.ExpressionWarning": "fieldRef warning",
  "admissionregistration.v1.Validation": "expression reason",
  "admissionregistration.v1.Variable": "name expression",
  "admissionregistration.v1.AuditAnnotation": "key valueExpression",
  "admissionregistration.v1.ParamRef": "parameterNotFoundAction",
  "admissionregistration.v1.MatchResources": "matchPolicy",
  "admissionregistration.v1beta1.MutatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds reinvocationPolicy",
  "admissionregistration.v1beta1.ValidatingWebhook": "name failurePolicy matchPolicy sideEffects timeoutSeconds",
  "admissionregistration.v1beta1.ServiceReference": "namespace name path port",
  "admissionregistration.v1beta1.WebhookClientConfig": "url",
  "admissionregistration.v1beta1.MatchCondition": "name expression",
  "admissionregistration.v1beta1.ValidatingAdmissionPolicySpec": "failurePolicy",
  "admissionregistration.v1beta1.ExpressionWarning": "fieldRef warning",
  "admissionregistration.v1beta1.Validation": "expression reason",
  "admissionregistration.v1beta1.Variable": "name expression",
  "admissionregistration.v1beta1.AuditAnnotation": "key valueExpression",
  "admissionregistration.v1beta1.ParamRef": "parameterNotFoundAction",
  "admissionregistration.v1beta1.MatchResources": "matchPolicy",
  "admissionregistration.v1alpha1.MatchCondition": "name expression",
  "admissionregistration.v1alpha1.ValidatingAdmissionPolicySpec": "failurePolicy",
  "admissionregistration.v1alpha1.ExpressionWarning": "fieldRef warning",
  "admissionregistration.v1alpha1.Validation": "expression reason",
  "admissionregistration.v1alpha1.Variable": "name expression",
  "admissionregistration.v1alpha1.AuditAnnotation": "key valueExpression",
  "admissionregistration.v1alpha1.ParamRef": "parameterNotFoundAction",
  "admissionregistration.v1alpha1.MatchResources": "matchPolicy",

  "node.v1.RuntimeClass": "handler",
  "node.v1beta1.RuntimeClass": "handler",

  "events.v1.EventSeries": "count",
  "events.v1beta1.EventSeries": "count",

  "apiextensions.v1.CustomResourceDefinitionVersion": "name served storage deprecationWarning",
  "apiextensions.v1.CustomResourceSubresourceScale": "specReplicasPath statusReplicasPath labelSelectorPath",
  "apiextensions.v1.ServiceReference": "namespace name path port",
  "apiextensions.v1.WebhookClientConfig": "url",
  "apiextensions.v1.JSONSchemaProps":
    "maximum minimum maxLength minLength maxItems minItems maxProperties minProperties multipleOf " +
    "xKubernetesPreserveUnknownFields xKubernetesListType xKubernetesMapType",

  "flowcontrol.v1.FlowSchemaSpec": "matchingPrecedence",
  "flowcontrol.v1.FlowDistinguisherMethod": "type",
  "flowcontrol.v1.PriorityLevelConfigurationReference": "name",
  "flowcontrol.v1.Subject": "kind",
  "flowcontrol.v1.UserSubject": "name",
  "flowcontrol.v1.GroupSubject": "name",
  "flowcontrol.v1.ServiceAccountSubject": "namespace name",
  "flowcontrol.v1.PriorityLevelConfigurationSpec": "type",
  "flowcontrol.v1.LimitedPriorityLevelConfiguration": "nominalConcurrencyShares lendablePercent borrowingLimitPercent",
  "flowcontrol.v1.ExemptPriorityLevelConfiguration": "nominalConcurrencyShares lendablePercent",
  "flowcontrol.v1.LimitResponse": "type",
  "flowcontrol.v1.QueuingConfiguration": "queues handSize queueLengthLimit",
  "flowcontrol.v1beta3.FlowSchemaSpec": "matchingPrecedence",
  "flowcontrol.v1beta3.FlowDistinguisherMethod": "type",
  "flowcontrol.v1beta3.PriorityLevelConfigurationReference": "name",
  "flowcontrol.v1beta3.Subject": "kind",
  "flowcontrol.v1beta3.UserSubject": "name",
  "flowcontrol.v1beta3.GroupSubject": "name",
  "flowcontrol.v1beta3.ServiceAccountSubject": "namespace name",
  "flowcontrol.v1beta3.PriorityLevelConfigurationSpec": "type",
  "flowcontrol.v1beta3.LimitedPriorityLevelConfiguration": "nominalConcurrencyShares lendablePercent borrowingLimitPercent",
  "flowcontrol.v1beta3.ExemptPriorityLevelConfiguration": "nominalConcurrencyShares lendablePercent",
  "flowcontrol.v1beta3.LimitResponse": "type",
  "flowcontrol.v1beta3.QueuingConfiguration": "queues handSize queueLengthLimit",
};

/**
 * What Go writes on every answer of a message (sweep 14 of docs/parity-sweep-2026-11-27.md): the
 * fields whose zero is on the wire and in the JSON whether or not a client sent them. Scalars
 * whose JSON tag has no `omitempty` (each also in `ZERO_KEPT`: `""`, `0`, `false`), lists and maps
 * without `omitempty` (`null`), `metav1.Time`/`MicroTime` structs (a zero time encodes as `null`,
 * and `omitempty` never drops a struct) and other non-pointer structs (`{}`). `go-zeros.ts` writes
 * them where a JSON body, a patch or a protobuf body without them leaves them out; only for the
 * definitions `OMITEMPTY_CHECKED` lists. Facts about kube 1.30's Go types.
 */
export const ZERO_WRITTEN: Readonly<Record<string, string>> = {
  "core.v1.Event": "involvedObject source firstTimestamp lastTimestamp eventTime reportingComponent reportingInstance",
  "core.v1.EventSeries": "lastObservedTime",
  "events.v1.Event": "eventTime regarding deprecatedSource deprecatedFirstTimestamp deprecatedLastTimestamp",
  "events.v1.EventSeries": "count lastObservedTime",
  "events.v1beta1.Event": "eventTime regarding deprecatedSource deprecatedFirstTimestamp deprecatedLastTimestamp",
  "events.v1beta1.EventSeries": "count lastObservedTime",

  "apps.v1.StatefulSetStatus": "replicas availableReplicas",
  "apps.v1.DaemonSetStatus": "currentNumberScheduled numberMisscheduled desiredNumberScheduled numberReady",
  "apps.v1.ReplicaSetStatus": "replicas",
  "core.v1.ReplicationControllerStatus": "replicas",
  "autoscaling.v2.HorizontalPodAutoscalerStatus": "desiredReplicas currentMetrics",
  "autoscaling.v1.HorizontalPodAutoscalerStatus": "currentReplicas desiredReplicas",
  "policy.v1.PodDisruptionBudgetStatus": "disruptionsAllowed currentHealthy desiredHealthy expectedPods",
  "core.v1.ServiceStatus": "loadBalancer",
  "core.v1.NodeStatus": "daemonEndpoints nodeInfo",
  "core.v1.NodeDaemonEndpoints": "kubeletEndpoint",
  "core.v1.DaemonEndpoint": "Port",
  "core.v1.NodeSystemInfo":
    "machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion kubeletVersion kubeProxyVersion operatingSystem architecture",

  "discovery.v1.EndpointSlice": "endpoints ports",
  "discovery.v1.Endpoint": "addresses conditions",
  "rbac.v1.Role": "rules",
  "rbac.v1.ClusterRole": "rules",
  "rbac.v1.PolicyRule": "verbs",

  "core.v1.PodCondition": "lastProbeTime lastTransitionTime",
  "core.v1.NodeCondition": "lastHeartbeatTime lastTransitionTime",
  "core.v1.PersistentVolumeClaimCondition": "lastProbeTime lastTransitionTime",
  "core.v1.NamespaceCondition": "lastTransitionTime",
  "core.v1.ReplicationControllerCondition": "lastTransitionTime",
  "apps.v1.DeploymentCondition": "lastUpdateTime lastTransitionTime",
  "apps.v1.ReplicaSetCondition": "lastTransitionTime",
  "apps.v1.StatefulSetCondition": "lastTransitionTime",
  "apps.v1.DaemonSetCondition": "lastTransitionTime",
  "batch.v1.JobCondition": "lastProbeTime lastTransitionTime",
  "autoscaling.v2.HorizontalPodAutoscalerCondition": "lastTransitionTime",
  "certificates.v1.CertificateSigningRequestCondition": "lastUpdateTime lastTransitionTime",
};

let written: ReadonlyMap<string, readonly string[]> | undefined;

/** `ZERO_WRITTEN` as lists of names by message id. */
export function zeroWrittenFields(): ReadonlyMap<string, readonly string[]> {
  written ??= new Map(Object.entries(ZERO_WRITTEN).map(([id, names]) => [id, names.split(/\s+/).filter((name) => name !== "")]));
  return written;
}

let parsed: ReadonlyMap<string, ReadonlySet<string>> | undefined;

/** `ZERO_KEPT` as sets by message id. */
export function zeroKeptFields(): ReadonlyMap<string, ReadonlySet<string>> {
  parsed ??= new Map(Object.entries(ZERO_KEPT).map(([id, names]) => [id, new Set(names.split(/\s+/).filter((name) => name !== ""))]));
  return parsed;
}
