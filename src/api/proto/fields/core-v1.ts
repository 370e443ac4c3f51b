import type { ProtoMessages } from "../messages.js";

/**
 * core/v1 messages: each field's wire number, and for message-typed fields the message (the element's
 * or value's for repeated and map fields). Every message reachable from the core kinds and from the
 * core types other groups use; List messages are left out (every list is metadata=1 items=2).
 */
export const CORE_V1: ProtoMessages = {
  "core.v1.AWSElasticBlockStoreVolumeSource": "volumeID=1 fsType=2 partition=3 readOnly=4",
  "core.v1.Affinity": "nodeAffinity=1:core.v1.NodeAffinity podAffinity=2:core.v1.PodAffinity podAntiAffinity=3:core.v1.PodAntiAffinity",
  "core.v1.AppArmorProfile": "type=1 localhostProfile=2",
  "core.v1.AttachedVolume": "name=1 devicePath=2",
  "core.v1.AzureDiskVolumeSource": "diskName=1 diskURI=2 cachingMode=3 fsType=4 readOnly=5 kind=6",
  "core.v1.AzureFilePersistentVolumeSource": "secretName=1 shareName=2 readOnly=3 secretNamespace=4",
  "core.v1.AzureFileVolumeSource": "secretName=1 shareName=2 readOnly=3",
  "core.v1.Binding": "metadata=1:meta.v1.ObjectMeta target=2:core.v1.ObjectReference",
  "core.v1.CSIPersistentVolumeSource":
    "driver=1 volumeHandle=2 readOnly=3 fsType=4 volumeAttributes=5 controllerPublishSecretRef=6:core.v1.SecretReference " +
    "nodeStageSecretRef=7:core.v1.SecretReference nodePublishSecretRef=8:core.v1.SecretReference " +
    "controllerExpandSecretRef=9:core.v1.SecretReference nodeExpandSecretRef=10:core.v1.SecretReference",
  "core.v1.CSIVolumeSource": "driver=1 readOnly=2 fsType=3 volumeAttributes=4 nodePublishSecretRef=5:core.v1.LocalObjectReference",
  "core.v1.Capabilities": "add=1 drop=2",
  "core.v1.CephFSPersistentVolumeSource": "monitors=1 path=2 user=3 secretFile=4 secretRef=5:core.v1.SecretReference readOnly=6",
  "core.v1.CephFSVolumeSource": "monitors=1 path=2 user=3 secretFile=4 secretRef=5:core.v1.LocalObjectReference readOnly=6",
  "core.v1.CinderPersistentVolumeSource": "volumeID=1 fsType=2 readOnly=3 secretRef=4:core.v1.SecretReference",
  "core.v1.CinderVolumeSource": "volumeID=1 fsType=2 readOnly=3 secretRef=4:core.v1.LocalObjectReference",
  "core.v1.ClaimSource": "resourceClaimName=1 resourceClaimTemplateName=2",
  "core.v1.ClientIPConfig": "timeoutSeconds=1",
  "core.v1.ClusterTrustBundleProjection": "name=1 signerName=2 labelSelector=3:meta.v1.LabelSelector optional=5 path=4",
  "core.v1.ComponentCondition": "type=1 status=2 message=3 error=4",
  "core.v1.ComponentStatus": "metadata=1:meta.v1.ObjectMeta conditions=2:core.v1.ComponentCondition",
  "core.v1.ConfigMap": "metadata=1:meta.v1.ObjectMeta immutable=4 data=2 binaryData=3",
  "core.v1.ConfigMapEnvSource": "localObjectReference=1:core.v1.LocalObjectReference optional=2",
  "core.v1.ConfigMapKeySelector": "localObjectReference=1:core.v1.LocalObjectReference key=2 optional=3",
  "core.v1.ConfigMapNodeConfigSource": "namespace=1 name=2 uid=3 resourceVersion=4 kubeletConfigKey=5",
  "core.v1.ConfigMapProjection": "localObjectReference=1:core.v1.LocalObjectReference items=2:core.v1.KeyToPath optional=4",
  "core.v1.ConfigMapVolumeSource": "localObjectReference=1:core.v1.LocalObjectReference items=2:core.v1.KeyToPath defaultMode=3 optional=4",
  "core.v1.Container":
    "name=1 image=2 command=3 args=4 workingDir=5 ports=6:core.v1.ContainerPort envFrom=19:core.v1.EnvFromSource env=7:core.v1.EnvVar " +
    "resources=8:core.v1.ResourceRequirements resizePolicy=23:core.v1.ContainerResizePolicy restartPolicy=24 " +
    "restartPolicyRules=25:core.v1.ContainerRestartRule volumeMounts=9:core.v1.VolumeMount volumeDevices=21:core.v1.VolumeDevice " +
    "livenessProbe=10:core.v1.Probe readinessProbe=11:core.v1.Probe startupProbe=22:core.v1.Probe lifecycle=12:core.v1.Lifecycle " +
    "terminationMessagePath=13 terminationMessagePolicy=20 imagePullPolicy=14 securityContext=15:core.v1.SecurityContext stdin=16 " +
    "stdinOnce=17 tty=18",
  "core.v1.ContainerExtendedResourceRequest": "containerName=1 resourceName=2 requestName=3",
  "core.v1.ContainerImage": "names=1 sizeBytes=2",
  "core.v1.ContainerPort": "name=1 hostPort=2 containerPort=3 protocol=4 hostIP=5",
  "core.v1.ContainerResizePolicy": "resourceName=1 restartPolicy=2",
  "core.v1.ContainerRestartRule": "action=1 exitCodes=2:core.v1.ContainerRestartRuleOnExitCodes",
  "core.v1.ContainerRestartRuleOnExitCodes": "operator=1 values=2",
  "core.v1.ContainerState": "waiting=1:core.v1.ContainerStateWaiting running=2:core.v1.ContainerStateRunning terminated=3:core.v1.ContainerStateTerminated",
  "core.v1.ContainerStateRunning": "startedAt=1:meta.v1.Time",
  "core.v1.ContainerStateTerminated": "exitCode=1 signal=2 reason=3 message=4 startedAt=5:meta.v1.Time finishedAt=6:meta.v1.Time containerID=7",
  "core.v1.ContainerStateWaiting": "reason=1 message=2",
  "core.v1.ContainerStatus":
    "name=1 state=2:core.v1.ContainerState lastState=3:core.v1.ContainerState ready=4 restartCount=5 image=6 imageID=7 containerID=8 " +
    "started=9 allocatedResources=10:resource.Quantity resources=11:core.v1.ResourceRequirements " +
    "volumeMounts=12:core.v1.VolumeMountStatus user=13:core.v1.ContainerUser allocatedResourcesStatus=14:core.v1.ResourceStatus " +
    "stopSignal=15",
  "core.v1.ContainerUser": "linux=1:core.v1.LinuxContainerUser",
  "core.v1.DaemonEndpoint": "Port=1",
  "core.v1.DownwardAPIProjection": "items=1:core.v1.DownwardAPIVolumeFile",
  "core.v1.DownwardAPIVolumeFile": "path=1 fieldRef=2:core.v1.ObjectFieldSelector resourceFieldRef=3:core.v1.ResourceFieldSelector mode=4",
  "core.v1.DownwardAPIVolumeSource": "items=1:core.v1.DownwardAPIVolumeFile defaultMode=2",
  "core.v1.EmptyDirVolumeSource": "medium=1 sizeLimit=2:resource.Quantity",
  "core.v1.EndpointAddress": "ip=1 hostname=3 nodeName=4 targetRef=2:core.v1.ObjectReference",
  "core.v1.EndpointPort": "name=1 port=2 protocol=3 appProtocol=4",
  "core.v1.EndpointSubset": "addresses=1:core.v1.EndpointAddress notReadyAddresses=2:core.v1.EndpointAddress ports=3:core.v1.EndpointPort",
  "core.v1.Endpoints": "metadata=1:meta.v1.ObjectMeta subsets=2:core.v1.EndpointSubset",
  "core.v1.EnvFromSource": "prefix=1 configMapRef=2:core.v1.ConfigMapEnvSource secretRef=3:core.v1.SecretEnvSource",
  "core.v1.EnvVar": "name=1 value=2 valueFrom=3:core.v1.EnvVarSource",
  "core.v1.EnvVarSource":
    "fieldRef=1:core.v1.ObjectFieldSelector resourceFieldRef=2:core.v1.ResourceFieldSelector " +
    "configMapKeyRef=3:core.v1.ConfigMapKeySelector secretKeyRef=4:core.v1.SecretKeySelector fileKeyRef=5:core.v1.FileKeySelector",
  "core.v1.EphemeralContainer": "ephemeralContainerCommon=1:core.v1.EphemeralContainerCommon targetContainerName=2",
  "core.v1.EphemeralContainerCommon":
    "name=1 image=2 command=3 args=4 workingDir=5 ports=6:core.v1.ContainerPort envFrom=19:core.v1.EnvFromSource env=7:core.v1.EnvVar " +
    "resources=8:core.v1.ResourceRequirements resizePolicy=23:core.v1.ContainerResizePolicy restartPolicy=24 " +
    "restartPolicyRules=25:core.v1.ContainerRestartRule volumeMounts=9:core.v1.VolumeMount volumeDevices=21:core.v1.VolumeDevice " +
    "livenessProbe=10:core.v1.Probe readinessProbe=11:core.v1.Probe startupProbe=22:core.v1.Probe lifecycle=12:core.v1.Lifecycle " +
    "terminationMessagePath=13 terminationMessagePolicy=20 imagePullPolicy=14 securityContext=15:core.v1.SecurityContext stdin=16 " +
    "stdinOnce=17 tty=18",
  "core.v1.EphemeralVolumeSource": "volumeClaimTemplate=1:core.v1.PersistentVolumeClaimTemplate",
  "core.v1.Event":
    "metadata=1:meta.v1.ObjectMeta involvedObject=2:core.v1.ObjectReference reason=3 message=4 source=5:core.v1.EventSource " +
    "firstTimestamp=6:meta.v1.Time lastTimestamp=7:meta.v1.Time count=8 type=9 eventTime=10:meta.v1.MicroTime " +
    "series=11:core.v1.EventSeries action=12 related=13:core.v1.ObjectReference reportingComponent=14 reportingInstance=15",
  "core.v1.EventSeries": "count=1 lastObservedTime=2:meta.v1.MicroTime",
  "core.v1.EventSource": "component=1 host=2",
  "core.v1.ExecAction": "command=1",
  "core.v1.FCVolumeSource": "targetWWNs=1 lun=2 fsType=3 readOnly=4 wwids=5",
  "core.v1.FileKeySelector": "volumeName=1 path=2 key=3 optional=4",
  "core.v1.FlexPersistentVolumeSource": "driver=1 fsType=2 secretRef=3:core.v1.SecretReference readOnly=4 options=5",
  "core.v1.FlexVolumeSource": "driver=1 fsType=2 secretRef=3:core.v1.LocalObjectReference readOnly=4 options=5",
  "core.v1.FlockerVolumeSource": "datasetName=1 datasetUUID=2",
  "core.v1.GCEPersistentDiskVolumeSource": "pdName=1 fsType=2 partition=3 readOnly=4",
  "core.v1.GRPCAction": "port=1 service=2",
  "core.v1.GitRepoVolumeSource": "repository=1 revision=2 directory=3",
  "core.v1.GlusterfsPersistentVolumeSource": "endpoints=1 path=2 readOnly=3 endpointsNamespace=4",
  "core.v1.GlusterfsVolumeSource": "endpoints=1 path=2 readOnly=3",
  "core.v1.HTTPGetAction": "path=1 port=2:intstr.IntOrString host=3 scheme=4 httpHeaders=5:core.v1.HTTPHeader",
  "core.v1.HTTPHeader": "name=1 value=2",
  "core.v1.HostAlias": "ip=1 hostnames=2",
  "core.v1.HostIP": "ip=1",
  "core.v1.HostPathVolumeSource": "path=1 type=2",
  "core.v1.ISCSIPersistentVolumeSource":
    "targetPortal=1 iqn=2 lun=3 iscsiInterface=4 fsType=5 readOnly=6 portals=7 chapAuthDiscovery=8 chapAuthSession=11 " +
    "secretRef=10:core.v1.SecretReference initiatorName=12",
  "core.v1.ISCSIVolumeSource":
    "targetPortal=1 iqn=2 lun=3 iscsiInterface=4 fsType=5 readOnly=6 portals=7 chapAuthDiscovery=8 chapAuthSession=11 " +
    "secretRef=10:core.v1.LocalObjectReference initiatorName=12",
  "core.v1.ImageVolumeSource": "reference=1 pullPolicy=2",
  "core.v1.ImageVolumeStatus": "imageRef=1",
  "core.v1.KeyToPath": "key=1 path=2 mode=3",
  "core.v1.Lifecycle": "postStart=1:core.v1.LifecycleHandler preStop=2:core.v1.LifecycleHandler stopSignal=3",
  "core.v1.LifecycleHandler": "exec=1:core.v1.ExecAction httpGet=2:core.v1.HTTPGetAction tcpSocket=3:core.v1.TCPSocketAction sleep=4:core.v1.SleepAction",
  "core.v1.LimitRange": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.LimitRangeSpec",
  "core.v1.LimitRangeItem":
    "type=1 max=2:resource.Quantity min=3:resource.Quantity default=4:resource.Quantity defaultRequest=5:resource.Quantity " +
    "maxLimitRequestRatio=6:resource.Quantity",
  "core.v1.LimitRangeSpec": "limits=1:core.v1.LimitRangeItem",
  "core.v1.LinuxContainerUser": "uid=1 gid=2 supplementalGroups=3",
  "core.v1.LoadBalancerIngress": "ip=1 hostname=2 ipMode=3 ports=4:core.v1.PortStatus",
  "core.v1.LoadBalancerStatus": "ingress=1:core.v1.LoadBalancerIngress",
  "core.v1.LocalObjectReference": "name=1",
  "core.v1.LocalVolumeSource": "path=1 fsType=2",
  "core.v1.ModifyVolumeStatus": "targetVolumeAttributesClassName=1 status=2",
  "core.v1.NFSVolumeSource": "server=1 path=2 readOnly=3",
  "core.v1.Namespace": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.NamespaceSpec status=3:core.v1.NamespaceStatus",
  "core.v1.NamespaceCondition": "type=1 status=2 lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "core.v1.NamespaceSpec": "finalizers=1",
  "core.v1.NamespaceStatus": "phase=1 conditions=2:core.v1.NamespaceCondition",
  "core.v1.Node": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.NodeSpec status=3:core.v1.NodeStatus",
  "core.v1.NodeAddress": "type=1 address=2",
  "core.v1.NodeAffinity":
    "requiredDuringSchedulingIgnoredDuringExecution=1:core.v1.NodeSelector " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:core.v1.PreferredSchedulingTerm",
  "core.v1.NodeCondition": "type=1 status=2 lastHeartbeatTime=3:meta.v1.Time lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "core.v1.NodeConfigSource": "configMap=2:core.v1.ConfigMapNodeConfigSource",
  "core.v1.NodeConfigStatus": "assigned=1:core.v1.NodeConfigSource active=2:core.v1.NodeConfigSource lastKnownGood=3:core.v1.NodeConfigSource error=4",
  "core.v1.NodeDaemonEndpoints": "kubeletEndpoint=1:core.v1.DaemonEndpoint",
  "core.v1.NodeFeatures": "supplementalGroupsPolicy=1 containerUlimits=2",
  "core.v1.NodeRuntimeHandler": "name=1 features=2:core.v1.NodeRuntimeHandlerFeatures",
  "core.v1.NodeRuntimeHandlerFeatures": "recursiveReadOnlyMounts=1 userNamespaces=2",
  "core.v1.NodeSelector": "nodeSelectorTerms=1:core.v1.NodeSelectorTerm",
  "core.v1.NodeSelectorRequirement": "key=1 operator=2 values=3",
  "core.v1.NodeSelectorTerm": "matchExpressions=1:core.v1.NodeSelectorRequirement matchFields=2:core.v1.NodeSelectorRequirement",
  "core.v1.NodeSpec": "podCIDR=1 podCIDRs=7 providerID=3 unschedulable=4 taints=5:core.v1.Taint configSource=6:core.v1.NodeConfigSource externalID=2",
  "core.v1.NodeStatus":
    "capacity=1:resource.Quantity allocatable=2:resource.Quantity phase=3 conditions=4:core.v1.NodeCondition " +
    "addresses=5:core.v1.NodeAddress daemonEndpoints=6:core.v1.NodeDaemonEndpoints nodeInfo=7:core.v1.NodeSystemInfo " +
    "images=8:core.v1.ContainerImage volumesInUse=9 volumesAttached=10:core.v1.AttachedVolume config=11:core.v1.NodeConfigStatus " +
    "runtimeHandlers=12:core.v1.NodeRuntimeHandler features=13:core.v1.NodeFeatures declaredFeatures=14",
  "core.v1.NodeSwapStatus": "capacity=1",
  "core.v1.NodeSystemInfo":
    "machineID=1 systemUUID=2 bootID=3 kernelVersion=4 osImage=5 containerRuntimeVersion=6 kubeletVersion=7 kubeProxyVersion=8 " +
    "operatingSystem=9 architecture=10 swap=11:core.v1.NodeSwapStatus",
  "core.v1.ObjectFieldSelector": "apiVersion=1 fieldPath=2",
  "core.v1.ObjectReference": "kind=1 namespace=2 name=3 uid=4 apiVersion=5 resourceVersion=6 fieldPath=7",
  "core.v1.PersistentVolume": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.PersistentVolumeSpec status=3:core.v1.PersistentVolumeStatus",
  "core.v1.PersistentVolumeClaim": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.PersistentVolumeClaimSpec status=3:core.v1.PersistentVolumeClaimStatus",
  "core.v1.PersistentVolumeClaimCondition": "type=1 status=2 lastProbeTime=3:meta.v1.Time lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "core.v1.PersistentVolumeClaimSpec":
    "accessModes=1 selector=4:meta.v1.LabelSelector resources=2:core.v1.VolumeResourceRequirements volumeName=3 storageClassName=5 " +
    "volumeMode=6 dataSource=7:core.v1.TypedLocalObjectReference dataSourceRef=8:core.v1.TypedObjectReference " +
    "volumeAttributesClassName=9",
  "core.v1.PersistentVolumeClaimStatus":
    "phase=1 accessModes=2 capacity=3:resource.Quantity conditions=4:core.v1.PersistentVolumeClaimCondition " +
    "allocatedResources=5:resource.Quantity allocatedResourceStatuses=7 currentVolumeAttributesClassName=8 " +
    "modifyVolumeStatus=9:core.v1.ModifyVolumeStatus",
  "core.v1.PersistentVolumeClaimTemplate": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.PersistentVolumeClaimSpec",
  "core.v1.PersistentVolumeClaimVolumeSource": "claimName=1 readOnly=2",
  "core.v1.PersistentVolumeSource":
    "gcePersistentDisk=1:core.v1.GCEPersistentDiskVolumeSource awsElasticBlockStore=2:core.v1.AWSElasticBlockStoreVolumeSource " +
    "hostPath=3:core.v1.HostPathVolumeSource glusterfs=4:core.v1.GlusterfsPersistentVolumeSource nfs=5:core.v1.NFSVolumeSource " +
    "rbd=6:core.v1.RBDPersistentVolumeSource iscsi=7:core.v1.ISCSIPersistentVolumeSource cinder=8:core.v1.CinderPersistentVolumeSource " +
    "cephfs=9:core.v1.CephFSPersistentVolumeSource fc=10:core.v1.FCVolumeSource flocker=11:core.v1.FlockerVolumeSource " +
    "flexVolume=12:core.v1.FlexPersistentVolumeSource azureFile=13:core.v1.AzureFilePersistentVolumeSource " +
    "vsphereVolume=14:core.v1.VsphereVirtualDiskVolumeSource quobyte=15:core.v1.QuobyteVolumeSource " +
    "azureDisk=16:core.v1.AzureDiskVolumeSource photonPersistentDisk=17:core.v1.PhotonPersistentDiskVolumeSource " +
    "portworxVolume=18:core.v1.PortworxVolumeSource scaleIO=19:core.v1.ScaleIOPersistentVolumeSource local=20:core.v1.LocalVolumeSource " +
    "storageos=21:core.v1.StorageOSPersistentVolumeSource csi=22:core.v1.CSIPersistentVolumeSource",
  "core.v1.PersistentVolumeSpec":
    "capacity=1:resource.Quantity persistentVolumeSource=2:core.v1.PersistentVolumeSource accessModes=3 " +
    "claimRef=4:core.v1.ObjectReference persistentVolumeReclaimPolicy=5 storageClassName=6 mountOptions=7 volumeMode=8 " +
    "nodeAffinity=9:core.v1.VolumeNodeAffinity volumeAttributesClassName=10",
  "core.v1.PersistentVolumeStatus": "phase=1 message=2 reason=3 lastPhaseTransitionTime=4:meta.v1.Time",
  "core.v1.PhotonPersistentDiskVolumeSource": "pdID=1 fsType=2",
  "core.v1.Pod": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.PodSpec status=3:core.v1.PodStatus",
  "core.v1.PodAffinity":
    "requiredDuringSchedulingIgnoredDuringExecution=1:core.v1.PodAffinityTerm " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:core.v1.WeightedPodAffinityTerm",
  "core.v1.PodAffinityTerm":
    "labelSelector=1:meta.v1.LabelSelector namespaces=2 topologyKey=3 namespaceSelector=4:meta.v1.LabelSelector matchLabelKeys=5 " + "mismatchLabelKeys=6",
  "core.v1.PodAntiAffinity":
    "requiredDuringSchedulingIgnoredDuringExecution=1:core.v1.PodAffinityTerm " +
    "preferredDuringSchedulingIgnoredDuringExecution=2:core.v1.WeightedPodAffinityTerm",
  "core.v1.PodCertificateProjection": "signerName=1 keyType=2 maxExpirationSeconds=3 credentialBundlePath=4 keyPath=5 certificateChainPath=6 userAnnotations=7",
  "core.v1.PodCondition": "type=1 observedGeneration=7 status=2 lastProbeTime=3:meta.v1.Time lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "core.v1.PodDNSConfig": "nameservers=1 searches=2 options=3:core.v1.PodDNSConfigOption",
  "core.v1.PodDNSConfigOption": "name=1 value=2",
  "core.v1.PodExtendedResourceClaimStatus": "requestMappings=1:core.v1.ContainerExtendedResourceRequest resourceClaimName=2",
  "core.v1.PodIP": "ip=1",
  "core.v1.PodOS": "name=1",
  "core.v1.PodReadinessGate": "conditionType=1",
  // `source` (and ClaimSource) is the 1.30 form; later releases replaced it with the two names (3, 4) and retired number 2.
  "core.v1.PodResourceClaim": "name=1 source=2:core.v1.ClaimSource resourceClaimName=3 resourceClaimTemplateName=4",
  "core.v1.PodResourceClaimStatus": "name=1 resourceClaimName=2",
  "core.v1.PodSchedulingGate": "name=1",
  "core.v1.PodSecurityContext":
    "seLinuxOptions=1:core.v1.SELinuxOptions windowsOptions=8:core.v1.WindowsSecurityContextOptions runAsUser=2 runAsGroup=6 " +
    "runAsNonRoot=3 supplementalGroups=4 supplementalGroupsPolicy=12 fsGroup=5 sysctls=7:core.v1.Sysctl fsGroupChangePolicy=9 " +
    "seccompProfile=10:core.v1.SeccompProfile appArmorProfile=11:core.v1.AppArmorProfile seLinuxChangePolicy=13",
  "core.v1.PodSpec":
    "volumes=1:core.v1.Volume initContainers=20:core.v1.Container containers=2:core.v1.Container " +
    "ephemeralContainers=34:core.v1.EphemeralContainer restartPolicy=3 terminationGracePeriodSeconds=4 activeDeadlineSeconds=5 " +
    "dnsPolicy=6 nodeSelector=7 serviceAccountName=8 serviceAccount=9 automountServiceAccountToken=21 nodeName=10 hostNetwork=11 " +
    "hostPID=12 hostIPC=13 shareProcessNamespace=27 securityContext=14:core.v1.PodSecurityContext " +
    "imagePullSecrets=15:core.v1.LocalObjectReference hostname=16 subdomain=17 affinity=18:core.v1.Affinity schedulerName=19 " +
    "tolerations=22:core.v1.Toleration hostAliases=23:core.v1.HostAlias priorityClassName=24 priority=25 " +
    "dnsConfig=26:core.v1.PodDNSConfig readinessGates=28:core.v1.PodReadinessGate runtimeClassName=29 enableServiceLinks=30 " +
    "preemptionPolicy=31 overhead=32:resource.Quantity topologySpreadConstraints=33:core.v1.TopologySpreadConstraint " +
    "setHostnameAsFQDN=35 os=36:core.v1.PodOS hostUsers=37 schedulingGates=38:core.v1.PodSchedulingGate " +
    "resourceClaims=39:core.v1.PodResourceClaim resources=40:core.v1.ResourceRequirements hostnameOverride=41 " +
    "workloadRef=42:core.v1.WorkloadReference",
  "core.v1.PodStatus":
    "observedGeneration=17 phase=1 conditions=2:core.v1.PodCondition message=3 reason=4 nominatedNodeName=11 hostIP=5 " +
    "hostIPs=16:core.v1.HostIP podIP=6 podIPs=12:core.v1.PodIP startTime=7:meta.v1.Time " +
    "initContainerStatuses=10:core.v1.ContainerStatus containerStatuses=8:core.v1.ContainerStatus qosClass=9 " +
    "ephemeralContainerStatuses=13:core.v1.ContainerStatus resize=14 resourceClaimStatuses=15:core.v1.PodResourceClaimStatus " +
    "extendedResourceClaimStatus=18:core.v1.PodExtendedResourceClaimStatus allocatedResources=19:resource.Quantity " +
    "resources=20:core.v1.ResourceRequirements",
  "core.v1.PodTemplate": "metadata=1:meta.v1.ObjectMeta template=2:core.v1.PodTemplateSpec",
  "core.v1.PodTemplateSpec": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.PodSpec",
  "core.v1.PortStatus": "port=1 protocol=2 error=3",
  "core.v1.PortworxVolumeSource": "volumeID=1 fsType=2 readOnly=3",
  "core.v1.PreferredSchedulingTerm": "weight=1 preference=2:core.v1.NodeSelectorTerm",
  "core.v1.Probe":
    "handler=1:core.v1.ProbeHandler initialDelaySeconds=2 timeoutSeconds=3 periodSeconds=4 successThreshold=5 failureThreshold=6 " +
    "terminationGracePeriodSeconds=7",
  "core.v1.ProbeHandler": "exec=1:core.v1.ExecAction httpGet=2:core.v1.HTTPGetAction tcpSocket=3:core.v1.TCPSocketAction grpc=4:core.v1.GRPCAction",
  "core.v1.ProjectedVolumeSource": "sources=1:core.v1.VolumeProjection defaultMode=2",
  "core.v1.QuobyteVolumeSource": "registry=1 volume=2 readOnly=3 user=4 group=5 tenant=6",
  "core.v1.RBDPersistentVolumeSource": "monitors=1 image=2 fsType=3 pool=4 user=5 keyring=6 secretRef=7:core.v1.SecretReference readOnly=8",
  "core.v1.RBDVolumeSource": "monitors=1 image=2 fsType=3 pool=4 user=5 keyring=6 secretRef=7:core.v1.LocalObjectReference readOnly=8",
  "core.v1.ReplicationController": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.ReplicationControllerSpec status=3:core.v1.ReplicationControllerStatus",
  "core.v1.ReplicationControllerCondition": "type=1 status=2 lastTransitionTime=3:meta.v1.Time reason=4 message=5",
  "core.v1.ReplicationControllerSpec": "replicas=1 minReadySeconds=4 selector=2 template=3:core.v1.PodTemplateSpec",
  "core.v1.ReplicationControllerStatus":
    "replicas=1 fullyLabeledReplicas=2 readyReplicas=4 availableReplicas=5 observedGeneration=3 " + "conditions=6:core.v1.ReplicationControllerCondition",
  "core.v1.ResourceClaim": "name=1 request=2",
  "core.v1.ResourceFieldSelector": "containerName=1 resource=2 divisor=3:resource.Quantity",
  "core.v1.ResourceHealth": "resourceID=1 health=2 message=6",
  "core.v1.ResourceQuota": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.ResourceQuotaSpec status=3:core.v1.ResourceQuotaStatus",
  "core.v1.ResourceQuotaSpec": "hard=1:resource.Quantity scopes=2 scopeSelector=3:core.v1.ScopeSelector",
  "core.v1.ResourceQuotaStatus": "hard=1:resource.Quantity used=2:resource.Quantity",
  "core.v1.ResourceRequirements": "limits=1:resource.Quantity requests=2:resource.Quantity claims=3:core.v1.ResourceClaim",
  "core.v1.ResourceStatus": "name=1 resources=2:core.v1.ResourceHealth",
  "core.v1.SELinuxOptions": "user=1 role=2 type=3 level=4",
  "core.v1.ScaleIOPersistentVolumeSource":
    "gateway=1 system=2 secretRef=3:core.v1.SecretReference sslEnabled=4 protectionDomain=5 storagePool=6 storageMode=7 volumeName=8 " + "fsType=9 readOnly=10",
  "core.v1.ScaleIOVolumeSource":
    "gateway=1 system=2 secretRef=3:core.v1.LocalObjectReference sslEnabled=4 protectionDomain=5 storagePool=6 storageMode=7 " +
    "volumeName=8 fsType=9 readOnly=10",
  "core.v1.ScopeSelector": "matchExpressions=1:core.v1.ScopedResourceSelectorRequirement",
  "core.v1.ScopedResourceSelectorRequirement": "scopeName=1 operator=2 values=3",
  "core.v1.SeccompProfile": "type=1 localhostProfile=2",
  "core.v1.Secret": "metadata=1:meta.v1.ObjectMeta immutable=5 data=2 stringData=4 type=3",
  "core.v1.SecretEnvSource": "localObjectReference=1:core.v1.LocalObjectReference optional=2",
  "core.v1.SecretKeySelector": "localObjectReference=1:core.v1.LocalObjectReference key=2 optional=3",
  "core.v1.SecretProjection": "localObjectReference=1:core.v1.LocalObjectReference items=2:core.v1.KeyToPath optional=4",
  "core.v1.SecretReference": "name=1 namespace=2",
  "core.v1.SecretVolumeSource": "secretName=1 items=2:core.v1.KeyToPath defaultMode=3 optional=4",
  "core.v1.SecurityContext":
    "capabilities=1:core.v1.Capabilities privileged=2 seLinuxOptions=3:core.v1.SELinuxOptions " +
    "windowsOptions=10:core.v1.WindowsSecurityContextOptions runAsUser=4 runAsGroup=8 runAsNonRoot=5 readOnlyRootFilesystem=6 " +
    "allowPrivilegeEscalation=7 procMount=9 seccompProfile=11:core.v1.SeccompProfile appArmorProfile=12:core.v1.AppArmorProfile " +
    "ulimits=13:core.v1.Ulimit",
  "core.v1.Service": "metadata=1:meta.v1.ObjectMeta spec=2:core.v1.ServiceSpec status=3:core.v1.ServiceStatus",
  "core.v1.ServiceAccount":
    "metadata=1:meta.v1.ObjectMeta secrets=2:core.v1.ObjectReference imagePullSecrets=3:core.v1.LocalObjectReference " + "automountServiceAccountToken=4",
  "core.v1.ServiceAccountTokenProjection": "audience=1 expirationSeconds=2 path=3",
  "core.v1.ServicePort": "name=1 protocol=2 appProtocol=6 port=3 targetPort=4:intstr.IntOrString nodePort=5",
  "core.v1.ServiceSpec":
    "ports=1:core.v1.ServicePort selector=2 clusterIP=3 clusterIPs=18 type=4 externalIPs=5 sessionAffinity=7 loadBalancerIP=8 " +
    "loadBalancerSourceRanges=9 externalName=10 externalTrafficPolicy=11 healthCheckNodePort=12 publishNotReadyAddresses=13 " +
    "sessionAffinityConfig=14:core.v1.SessionAffinityConfig ipFamilies=19 ipFamilyPolicy=17 allocateLoadBalancerNodePorts=20 " +
    "loadBalancerClass=21 internalTrafficPolicy=22 trafficDistribution=23",
  "core.v1.ServiceStatus": "loadBalancer=1:core.v1.LoadBalancerStatus conditions=2:meta.v1.Condition",
  "core.v1.SessionAffinityConfig": "clientIP=1:core.v1.ClientIPConfig",
  "core.v1.SleepAction": "seconds=1",
  "core.v1.StorageOSPersistentVolumeSource": "volumeName=1 volumeNamespace=2 fsType=3 readOnly=4 secretRef=5:core.v1.ObjectReference",
  "core.v1.StorageOSVolumeSource": "volumeName=1 volumeNamespace=2 fsType=3 readOnly=4 secretRef=5:core.v1.LocalObjectReference",
  "core.v1.Sysctl": "name=1 value=2",
  "core.v1.TCPSocketAction": "port=1:intstr.IntOrString host=2",
  "core.v1.Taint": "key=1 value=2 effect=3 timeAdded=4:meta.v1.Time",
  "core.v1.Toleration": "key=1 operator=2 value=3 effect=4 tolerationSeconds=5",
  "core.v1.TopologySelectorLabelRequirement": "key=1 values=2",
  "core.v1.TopologySelectorTerm": "matchLabelExpressions=1:core.v1.TopologySelectorLabelRequirement",
  "core.v1.TopologySpreadConstraint":
    "maxSkew=1 topologyKey=2 whenUnsatisfiable=3 labelSelector=4:meta.v1.LabelSelector minDomains=5 nodeAffinityPolicy=6 " +
    "nodeTaintsPolicy=7 matchLabelKeys=8",
  "core.v1.TypedLocalObjectReference": "apiGroup=1 kind=2 name=3",
  "core.v1.TypedObjectReference": "apiGroup=1 kind=2 name=3 namespace=4",
  "core.v1.Ulimit": "name=1 hard=2 soft=3",
  "core.v1.Volume": "name=1 volumeSource=2:core.v1.VolumeSource",
  "core.v1.VolumeDevice": "name=1 devicePath=2",
  "core.v1.VolumeMount": "name=1 readOnly=2 recursiveReadOnly=7 mountPath=3 subPath=4 mountPropagation=5 subPathExpr=6",
  "core.v1.VolumeMountStatus": "name=1 mountPath=2 readOnly=3 recursiveReadOnly=4 volumeStatus=5:core.v1.VolumeStatus",
  "core.v1.VolumeNodeAffinity": "required=1:core.v1.NodeSelector",
  "core.v1.VolumeProjection":
    "secret=1:core.v1.SecretProjection downwardAPI=2:core.v1.DownwardAPIProjection configMap=3:core.v1.ConfigMapProjection " +
    "serviceAccountToken=4:core.v1.ServiceAccountTokenProjection clusterTrustBundle=5:core.v1.ClusterTrustBundleProjection " +
    "podCertificate=6:core.v1.PodCertificateProjection",
  "core.v1.VolumeResourceRequirements": "limits=1:resource.Quantity requests=2:resource.Quantity",
  "core.v1.VolumeSource":
    "hostPath=1:core.v1.HostPathVolumeSource emptyDir=2:core.v1.EmptyDirVolumeSource " +
    "gcePersistentDisk=3:core.v1.GCEPersistentDiskVolumeSource awsElasticBlockStore=4:core.v1.AWSElasticBlockStoreVolumeSource " +
    "gitRepo=5:core.v1.GitRepoVolumeSource secret=6:core.v1.SecretVolumeSource nfs=7:core.v1.NFSVolumeSource " +
    "iscsi=8:core.v1.ISCSIVolumeSource glusterfs=9:core.v1.GlusterfsVolumeSource " +
    "persistentVolumeClaim=10:core.v1.PersistentVolumeClaimVolumeSource rbd=11:core.v1.RBDVolumeSource " +
    "flexVolume=12:core.v1.FlexVolumeSource cinder=13:core.v1.CinderVolumeSource cephfs=14:core.v1.CephFSVolumeSource " +
    "flocker=15:core.v1.FlockerVolumeSource downwardAPI=16:core.v1.DownwardAPIVolumeSource fc=17:core.v1.FCVolumeSource " +
    "azureFile=18:core.v1.AzureFileVolumeSource configMap=19:core.v1.ConfigMapVolumeSource " +
    "vsphereVolume=20:core.v1.VsphereVirtualDiskVolumeSource quobyte=21:core.v1.QuobyteVolumeSource " +
    "azureDisk=22:core.v1.AzureDiskVolumeSource photonPersistentDisk=23:core.v1.PhotonPersistentDiskVolumeSource " +
    "projected=26:core.v1.ProjectedVolumeSource portworxVolume=24:core.v1.PortworxVolumeSource scaleIO=25:core.v1.ScaleIOVolumeSource " +
    "storageos=27:core.v1.StorageOSVolumeSource csi=28:core.v1.CSIVolumeSource ephemeral=29:core.v1.EphemeralVolumeSource " +
    "image=30:core.v1.ImageVolumeSource",
  "core.v1.VolumeStatus": "image=1:core.v1.ImageVolumeStatus",
  "core.v1.VsphereVirtualDiskVolumeSource": "volumePath=1 fsType=2 storagePolicyName=3 storagePolicyID=4",
  "core.v1.WeightedPodAffinityTerm": "weight=1 podAffinityTerm=2:core.v1.PodAffinityTerm",
  "core.v1.WindowsSecurityContextOptions": "gmsaCredentialSpecName=1 gmsaCredentialSpec=2 runAsUserName=3 hostProcess=4",
  "core.v1.WorkloadReference": "name=1 podGroup=2 podGroupReplicaKey=3",
};
