import type { ProtoMessages } from "../messages.js";

/**
 * policy/v1beta1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields).
 * The PodSecurityPolicy messages come from the last release that still carried them.
 */
export const POLICY_V1BETA1: ProtoMessages = {
  "policy.v1beta1.AllowedCSIDriver": "name=1",
  "policy.v1beta1.AllowedFlexVolume": "driver=1",
  "policy.v1beta1.AllowedHostPath": "pathPrefix=1 readOnly=2",
  "policy.v1beta1.FSGroupStrategyOptions": "rule=1 ranges=2:policy.v1beta1.IDRange",
  "policy.v1beta1.HostPortRange": "min=1 max=2",
  "policy.v1beta1.IDRange": "min=1 max=2",
  "policy.v1beta1.PodDisruptionBudget":
    "metadata=1:meta.v1.ObjectMeta spec=2:policy.v1beta1.PodDisruptionBudgetSpec status=3:policy.v1beta1.PodDisruptionBudgetStatus",
  "policy.v1beta1.PodDisruptionBudgetSpec":
    "minAvailable=1:intstr.IntOrString selector=2:meta.v1.LabelSelector maxUnavailable=3:intstr.IntOrString unhealthyPodEvictionPolicy=4",
  "policy.v1beta1.PodDisruptionBudgetStatus":
    "observedGeneration=1 disruptedPods=2:meta.v1.Time disruptionsAllowed=3 currentHealthy=4 desiredHealthy=5 expectedPods=6 conditions=7:meta.v1.Condition",
  "policy.v1beta1.PodSecurityPolicy": "metadata=1:meta.v1.ObjectMeta spec=2:policy.v1beta1.PodSecurityPolicySpec",
  "policy.v1beta1.PodSecurityPolicySpec":
    "privileged=1 defaultAddCapabilities=2 requiredDropCapabilities=3 allowedCapabilities=4 volumes=5 hostNetwork=6 hostPorts=7:policy.v1beta1.HostPortRange hostPID=8 hostIPC=9 seLinux=10:policy.v1beta1.SELinuxStrategyOptions runAsUser=11:policy.v1beta1.RunAsUserStrategyOptions runAsGroup=22:policy.v1beta1.RunAsGroupStrategyOptions supplementalGroups=12:policy.v1beta1.SupplementalGroupsStrategyOptions fsGroup=13:policy.v1beta1.FSGroupStrategyOptions readOnlyRootFilesystem=14 defaultAllowPrivilegeEscalation=15 allowPrivilegeEscalation=16 allowedHostPaths=17:policy.v1beta1.AllowedHostPath allowedFlexVolumes=18:policy.v1beta1.AllowedFlexVolume allowedCSIDrivers=23:policy.v1beta1.AllowedCSIDriver allowedUnsafeSysctls=19 forbiddenSysctls=20 allowedProcMountTypes=21 runtimeClass=24:policy.v1beta1.RuntimeClassStrategyOptions",
  "policy.v1beta1.RunAsGroupStrategyOptions": "rule=1 ranges=2:policy.v1beta1.IDRange",
  "policy.v1beta1.RunAsUserStrategyOptions": "rule=1 ranges=2:policy.v1beta1.IDRange",
  "policy.v1beta1.RuntimeClassStrategyOptions": "allowedRuntimeClassNames=1 defaultRuntimeClassName=2",
  "policy.v1beta1.SELinuxStrategyOptions": "rule=1 seLinuxOptions=2:core.v1.SELinuxOptions",
  "policy.v1beta1.SupplementalGroupsStrategyOptions": "rule=1 ranges=2:policy.v1beta1.IDRange",
};
