import type { Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { initialStatus } from "../initial-status.js";
import { defineResource } from "../define.js";
import { CONFIG_MAP_STRATEGY, SECRET_STRATEGY } from "./data-strategy.js";
import { namespaceStrategy } from "./namespace-strategy.js";
import { BINDING_HANDLER } from "./binding.js";
import { EVICTION_HANDLER } from "./eviction.js";
import { NODE_CONNECT, POD_CONNECT, SERVICE_CONNECT } from "./node-agent.js";
import { podStrategy } from "./pod-strategy.js";
import { serviceAllocations, type ServiceNetwork } from "./service-allocations.js";
import { SERVICE_STRATEGY } from "./service-strategy.js";

const CORE = { group: "", version: "v1" } as const;

/** Claims and volumes start Pending, as kube's strategies and defaults leave them. */
const PENDING_CLAIM = initialStatus(() => ({ phase: "Pending" }));
const PENDING_VOLUME = initialStatus((_volume, context) => ({ phase: "Pending", lastPhaseTransitionTime: context.now }));

/**
 * The core/v1 resources: stored kinds with their strategies, and the create-only `bindings`. None
 * has a `metadata.generation`: kube 1.30's core strategies set it on none of them (pods get one
 * from 1.33); PodTemplate and ReplicationController (in the catalogue) do.
 */
export function coreResources(profile: Profile, serviceNetwork: ServiceNetwork): ResourceDefinition[] {
  return [
    defineResource({
      ...CORE,
      kind: "Namespace",
      plural: "namespaces",
      scope: "Cluster",
      shortNames: ["ns"],
      subresources: ["status", "finalize"],
      selectableFields: ["status.phase"],
      nameRule: "dns1123-label",
      strategy: namespaceStrategy(profile),
    }),
    defineResource({ ...CORE, kind: "ConfigMap", plural: "configmaps", scope: "Namespaced", shortNames: ["cm"], strategy: CONFIG_MAP_STRATEGY }),
    defineResource({ ...CORE, kind: "Secret", plural: "secrets", scope: "Namespaced", selectableFields: ["type"], strategy: SECRET_STRATEGY }),
    defineResource({ ...CORE, kind: "ServiceAccount", plural: "serviceaccounts", scope: "Namespaced", shortNames: ["sa"] }),
    defineResource({
      ...CORE,
      kind: "Pod",
      plural: "pods",
      scope: "Namespaced",
      shortNames: ["po"],
      categories: ["all"],
      subresources: ["status", "ephemeralcontainers"],
      subresourceHandlers: { binding: BINDING_HANDLER, eviction: EVICTION_HANDLER },
      connect: POD_CONNECT,
      strategy: podStrategy(profile.keyDomain),
      // kube's pod field labels: spec.host is read as spec.nodeName (old clients); status.podIPs is accepted and never set, so it reads as empty.
      selectableFields: [
        "spec.nodeName",
        ["spec.host", "spec.nodeName"],
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        ["spec.hostNetwork", "spec.hostNetwork", "false"],
        "status.phase",
        "status.podIP",
        ["status.podIPs", "status.podIPs.none"],
        "status.nominatedNodeName",
      ],
    }),
    defineResource({
      ...CORE,
      kind: "Service",
      plural: "services",
      scope: "Namespaced",
      shortNames: ["svc"],
      categories: ["all"],
      subresources: ["status"],
      nameRule: "dns1035-label",
      createOnUpdate: true,
      strategy: SERVICE_STRATEGY,
      connect: SERVICE_CONNECT,
      allocations: serviceAllocations(serviceNetwork),
    }),
    defineResource({
      ...CORE,
      kind: "Node",
      plural: "nodes",
      scope: "Cluster",
      shortNames: ["no"],
      subresources: ["status"],
      keepStatusOnCreate: true,
      selectableFields: [["spec.unschedulable", "spec.unschedulable", "false"]],
      connect: NODE_CONNECT,
    }),
    defineResource({
      ...CORE,
      kind: "Event",
      plural: "events",
      scope: "Namespaced",
      shortNames: ["ev"],
      nameRule: "path-segment",
      createOnUpdate: true,
      selectableFields: [
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        ["source", "source.component"],
        "type",
      ],
    }),
    defineResource({ ...CORE, kind: "Binding", plural: "bindings", scope: "Namespaced", virtual: BINDING_HANDLER }),
    defineResource({ ...CORE, kind: "Endpoints", plural: "endpoints", scope: "Namespaced", shortNames: ["ep"], createOnUpdate: true }),
    defineResource({
      ...CORE,
      kind: "LimitRange",
      plural: "limitranges",
      scope: "Namespaced",
      shortNames: ["limits"],
      createOnUpdate: true,
    }),
    defineResource({
      ...CORE,
      kind: "ResourceQuota",
      plural: "resourcequotas",
      scope: "Namespaced",
      shortNames: ["quota"],
      subresources: ["status"],
    }),
    defineResource({
      ...CORE,
      kind: "PersistentVolume",
      plural: "persistentvolumes",
      scope: "Cluster",
      shortNames: ["pv"],
      subresources: ["status"],
      strategy: PENDING_VOLUME,
    }),
    defineResource({
      ...CORE,
      kind: "PersistentVolumeClaim",
      plural: "persistentvolumeclaims",
      scope: "Namespaced",
      shortNames: ["pvc"],
      strategy: PENDING_CLAIM,
      subresources: ["status"],
    }),
  ];
}
