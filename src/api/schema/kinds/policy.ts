import { atomic, bool, enumOf, int32, int64, intOrString, labelSelector, listMap, mapOf, obj, ref, req, str, strings, time, type SchemaNode } from "../node.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { DELETE_OPTIONS_FIELDS, resource } from "./meta.js";

/**
 * policy/v1 PodDisruptionBudget (also served as v1beta1), policy/v1beta1 PodSecurityPolicy, and
 * policy/v1 Eviction, the body of `pods/{name}/eviction` (create-only, never stored or listed).
 */

const POD_DISRUPTION_BUDGET = resource("PodDisruptionBudget limits the disruption of a collection of pods.", {
  spec: obj({
    maxUnavailable: intOrString(),
    minAvailable: intOrString(),
    selector: { ...labelSelector("Label query over the pods the budget covers."), patchStrategy: "replace" },
    unhealthyPodEvictionPolicy: enumOf(["AlwaysAllow", "IfHealthyBudget"]),
  }),
  status: obj({
    conditions: listMap(ref("meta.v1.Condition"), ["type"], { patch: true }),
    currentHealthy: int32(),
    desiredHealthy: int32(),
    disruptedPods: mapOf(time()),
    disruptionsAllowed: int32(),
    expectedPods: int32(),
    observedGeneration: int64(),
  }),
});

const ranges = (): SchemaNode => atomic(obj({ max: req(int64()), min: req(int64()) }));
const strategy = (ruleRequired: boolean): SchemaNode => obj({ ranges: ranges(), rule: ruleRequired ? req(str()) : str() });

export const POLICY_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "policy.v1.Eviction": resource("Eviction evicts a pod from its node subject to certain policies and safety constraints.", {
    deleteOptions: obj(DELETE_OPTIONS_FIELDS),
  }),
  "policy.v1.PodDisruptionBudget": POD_DISRUPTION_BUDGET,
  "policy.v1beta1.PodDisruptionBudget": POD_DISRUPTION_BUDGET,
  "policy.v1beta1.PodSecurityPolicy": resource("PodSecurityPolicy governs the ability to make requests that affect the security context (deprecated).", {
    spec: obj({
      allowPrivilegeEscalation: bool(),
      allowedCSIDrivers: atomic(obj({ name: req(str()) })),
      allowedCapabilities: strings(),
      allowedFlexVolumes: atomic(obj({ driver: req(str()) })),
      allowedHostPaths: atomic(obj({ pathPrefix: str(), readOnly: bool() })),
      allowedProcMountTypes: strings(),
      allowedUnsafeSysctls: strings(),
      defaultAddCapabilities: strings(),
      defaultAllowPrivilegeEscalation: bool(),
      forbiddenSysctls: strings(),
      fsGroup: req(strategy(false)),
      hostIPC: bool(),
      hostNetwork: bool(),
      hostPID: bool(),
      hostPorts: atomic(obj({ max: req(int32()), min: req(int32()) })),
      privileged: bool(),
      readOnlyRootFilesystem: bool(),
      requiredDropCapabilities: strings(),
      runAsGroup: strategy(true),
      runAsUser: req(strategy(true)),
      runtimeClass: obj({ allowedRuntimeClassNames: strings(), defaultRuntimeClassName: str() }),
      seLinux: req(obj({ rule: req(str()), seLinuxOptions: ref("core.v1.SELinuxOptions") })),
      supplementalGroups: req(strategy(false)),
      volumes: strings(),
    }),
  }),
};

export const POLICY_KINDS: readonly KindDeclaration[] = [
  { group: "policy", version: "v1", kind: "Eviction", id: "policy.v1.Eviction" },
  { group: "policy", version: "v1", kind: "PodDisruptionBudget", id: "policy.v1.PodDisruptionBudget" },
  { group: "policy", version: "v1beta1", kind: "PodDisruptionBudget", id: "policy.v1beta1.PodDisruptionBudget" },
  { group: "policy", version: "v1beta1", kind: "PodSecurityPolicy", id: "policy.v1beta1.PodSecurityPolicy" },
];
