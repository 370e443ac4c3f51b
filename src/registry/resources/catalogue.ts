import { apiGroup, type Profile } from "../../api/profile.js";
import { HPA_V1_STATUS, HPA_V2_STATUS, LOAD_BALANCER_STATUS, PDB_STATUS, REPLICAS_STATUS, DAEMON_SET_STATUS, STATEFUL_SET_STATUS } from "./initial-status.js";
import { CSR_STRATEGY } from "./certificates/csr-strategy.js";
import { jobStrategy } from "./batch/job-strategy.js";
import type { ResourceDefinition } from "../definition.js";
import { EVENTS_V1_SELECTABLE_FIELDS, endpointSliceV1beta1StoredAsV1, hpaV1StoredAsV2, eventsV1StoredAsCore, sameShape } from "./conversion.js";
import { defineResource } from "./define.js";
import { APPS_SCALE, REPLICATION_CONTROLLER_SCALE } from "../scale.js";

/**
 * The named groups of the catalogue as stored objects (kinds, scopes, short names, categories,
 * sub-resources). Deprecated versions announced for removal in 1.25 are served from their stable
 * version's storage with a Warning. Kinds written by other modules (Deployments, RBAC, the review
 * kinds) are declared next to the code that gives them behaviour.
 * Their schemas, defaults and validation come from the schema catalogue (`api/schema`), attached
 * by `registry/schemas.ts`; tables from `codec/table-columns.ts`.
 */
export function catalogueResources(profile: Profile): ResourceDefinition[] {
  const networking = apiGroup(profile, "networking");
  const storage = apiGroup(profile, "storage");
  const scheduling = apiGroup(profile, "scheduling");
  const node = apiGroup(profile, "node");
  const coordination = apiGroup(profile, "coordination");
  const discovery = apiGroup(profile, "discovery");
  const events = apiGroup(profile, "events");
  const certificates = apiGroup(profile, "certificates");
  const admission = apiGroup(profile, "admissionregistration");
  const apiextensions = apiGroup(profile, "apiextensions");
  const flowcontrol = apiGroup(profile, "flowcontrol.apiserver");
  const removedIn125 = (replacement: string, since: string) => ({ since, removedIn: "1.25", replacement });
  const stored = (group: string, version: string, plural: string) => ({ group, version, plural });
  return [
    // core v1 kinds beyond the foundation's
    // kube bumps a PodTemplate's generation when its template changes (its warnings follow it).
    defineResource({ group: "", version: "v1", kind: "PodTemplate", plural: "podtemplates", scope: "Namespaced", hasGeneration: true }),
    defineResource({
      group: "",
      version: "v1",
      kind: "ReplicationController",
      plural: "replicationcontrollers",
      scope: "Namespaced",
      shortNames: ["rc"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: REPLICAS_STATUS,
      scale: REPLICATION_CONTROLLER_SCALE,
      selectableFields: [["status.replicas", "status.replicas", "0"]],
    }),
    defineResource({
      group: "",
      version: "v1",
      kind: "ComponentStatus",
      plural: "componentstatuses",
      scope: "Cluster",
      shortNames: ["cs"],
      verbs: ["get", "list"],
      computedInKube: true,
      // Deprecated without a removal release: kube's warning names no replacement either.
      deprecation: { since: "1.19", removedIn: "", warning: "v1 ComponentStatus is deprecated in v1.19+" },
    }),
    // apps/v1 (Deployments are declared with server-side apply's resources)
    defineResource({
      group: "apps",
      version: "v1",
      kind: "ReplicaSet",
      plural: "replicasets",
      scope: "Namespaced",
      shortNames: ["rs"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: REPLICAS_STATUS,
      scale: APPS_SCALE,
      // kube's ReplicaSet field label, as the ReplicationController's (apps/v1 converts it too).
      selectableFields: [["status.replicas", "status.replicas", "0"]],
    }),
    defineResource({
      group: "apps",
      version: "v1",
      kind: "StatefulSet",
      plural: "statefulsets",
      scope: "Namespaced",
      shortNames: ["sts"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: STATEFUL_SET_STATUS,
      scale: APPS_SCALE,
    }),
    defineResource({
      group: "apps",
      version: "v1",
      kind: "DaemonSet",
      plural: "daemonsets",
      scope: "Namespaced",
      shortNames: ["ds"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: DAEMON_SET_STATUS,
    }),
    defineResource({ group: "apps", version: "v1", kind: "ControllerRevision", plural: "controllerrevisions", scope: "Namespaced" }),
    // batch
    defineResource({
      group: "batch",
      version: "v1",
      kind: "Job",
      plural: "jobs",
      scope: "Namespaced",
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: jobStrategy(profile.keyDomain),
      // kube's one Job field label (`kubectl delete jobs --field-selector status.successful=1`): the succeeded count.
      selectableFields: [["status.successful", "status.succeeded", "0"]],
    }),
    defineResource({
      group: "batch",
      version: "v1",
      kind: "CronJob",
      plural: "cronjobs",
      scope: "Namespaced",
      shortNames: ["cj"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
    }),
    defineResource({
      group: "batch",
      version: "v1beta1",
      kind: "CronJob",
      plural: "cronjobs",
      scope: "Namespaced",
      shortNames: ["cj"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      storedAs: sameShape({ group: "batch", version: "v1beta1", kind: "CronJob" }, stored("batch", "v1", "cronjobs")),
      deprecation: removedIn125("batch/v1", "1.21"),
    }),
    // autoscaling v2 (storage) and v1
    defineResource({
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
      plural: "horizontalpodautoscalers",
      scope: "Namespaced",
      shortNames: ["hpa"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: HPA_V2_STATUS,
    }),
    defineResource({
      group: "autoscaling",
      version: "v1",
      kind: "HorizontalPodAutoscaler",
      plural: "horizontalpodautoscalers",
      scope: "Namespaced",
      shortNames: ["hpa"],
      categories: ["all"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: HPA_V1_STATUS,
      storedAs: hpaV1StoredAsV2(`autoscaling.alpha.${profile.keyDomain}`),
    }),
    // policy
    defineResource({
      group: "policy",
      version: "v1",
      kind: "PodDisruptionBudget",
      plural: "poddisruptionbudgets",
      scope: "Namespaced",
      shortNames: ["pdb"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: PDB_STATUS,
    }),
    defineResource({
      group: "policy",
      version: "v1beta1",
      kind: "PodDisruptionBudget",
      plural: "poddisruptionbudgets",
      scope: "Namespaced",
      shortNames: ["pdb"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: PDB_STATUS,
      storedAs: sameShape({ group: "policy", version: "v1beta1", kind: "PodDisruptionBudget" }, stored("policy", "v1", "poddisruptionbudgets")),
      deprecation: removedIn125("policy/v1", "1.21"),
    }),
    defineResource({
      group: "policy",
      version: "v1beta1",
      kind: "PodSecurityPolicy",
      plural: "podsecuritypolicies",
      scope: "Cluster",
      shortNames: ["psp"],
      deprecation: { since: "1.21", removedIn: "1.25" },
    }),
    // networking
    defineResource({
      group: networking,
      version: "v1",
      kind: "Ingress",
      plural: "ingresses",
      scope: "Namespaced",
      shortNames: ["ing"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: LOAD_BALANCER_STATUS,
    }),
    defineResource({ group: networking, version: "v1", kind: "IngressClass", plural: "ingressclasses", scope: "Cluster", hasGeneration: true }),
    defineResource({
      group: networking,
      version: "v1",
      kind: "NetworkPolicy",
      plural: "networkpolicies",
      scope: "Namespaced",
      shortNames: ["netpol"],
      hasGeneration: true,
    }),
    // storage
    defineResource({ group: storage, version: "v1", kind: "StorageClass", plural: "storageclasses", scope: "Cluster", shortNames: ["sc"] }),
    defineResource({ group: storage, version: "v1", kind: "CSIDriver", plural: "csidrivers", scope: "Cluster" }),
    defineResource({ group: storage, version: "v1", kind: "CSINode", plural: "csinodes", scope: "Cluster" }),
    defineResource({ group: storage, version: "v1", kind: "VolumeAttachment", plural: "volumeattachments", scope: "Cluster", subresources: ["status"] }),
    // scheduling, node, coordination
    defineResource({ group: scheduling, version: "v1", kind: "PriorityClass", plural: "priorityclasses", scope: "Cluster", shortNames: ["pc"] }),
    defineResource({ group: node, version: "v1", kind: "RuntimeClass", plural: "runtimeclasses", scope: "Cluster", createOnUpdate: true }),
    defineResource({
      group: node,
      version: "v1beta1",
      kind: "RuntimeClass",
      plural: "runtimeclasses",
      scope: "Cluster",
      createOnUpdate: true,
      storedAs: sameShape({ group: node, version: "v1beta1", kind: "RuntimeClass" }, stored(node, "v1", "runtimeclasses")),
      deprecation: removedIn125(`${node}/v1`, "1.22"),
    }),
    defineResource({ group: coordination, version: "v1", kind: "Lease", plural: "leases", scope: "Namespaced", createOnUpdate: true }),
    // discovery
    defineResource({ group: discovery, version: "v1", kind: "EndpointSlice", plural: "endpointslices", scope: "Namespaced", createOnUpdate: true }),
    defineResource({
      group: discovery,
      version: "v1beta1",
      kind: "EndpointSlice",
      plural: "endpointslices",
      scope: "Namespaced",
      createOnUpdate: true,
      storedAs: endpointSliceV1beta1StoredAsV1(discovery, profile.keyDomain),
      deprecation: removedIn125(`${discovery}/v1`, "1.21"),
    }),
    // events: stored once as core v1 Events
    defineResource({
      group: events,
      version: "v1",
      kind: "Event",
      plural: "events",
      scope: "Namespaced",
      shortNames: ["ev"],
      nameRule: "path-segment",
      createOnUpdate: true,
      selectableFields: EVENTS_V1_SELECTABLE_FIELDS,
      storedAs: eventsV1StoredAsCore(events),
    }),
    defineResource({
      group: events,
      version: "v1beta1",
      kind: "Event",
      plural: "events",
      scope: "Namespaced",
      shortNames: ["ev"],
      nameRule: "path-segment",
      createOnUpdate: true,
      selectableFields: EVENTS_V1_SELECTABLE_FIELDS,
      storedAs: eventsV1StoredAsCore(events, "v1beta1"),
      deprecation: removedIn125(`${events}/v1`, "1.22"),
    }),
    // certificates
    defineResource({
      group: certificates,
      version: "v1",
      kind: "CertificateSigningRequest",
      plural: "certificatesigningrequests",
      scope: "Cluster",
      shortNames: ["csr"],
      subresources: ["status", "approval"],
      selectableFields: ["spec.signerName"],
      strategy: CSR_STRATEGY,
    }),
    // admission registration: v1 stores, v1beta1 served from it
    defineResource({
      group: admission,
      version: "v1",
      kind: "MutatingWebhookConfiguration",
      plural: "mutatingwebhookconfigurations",
      scope: "Cluster",
      categories: ["api-extensions"],
      hasGeneration: true,
    }),
    defineResource({
      group: admission,
      version: "v1",
      kind: "ValidatingWebhookConfiguration",
      plural: "validatingwebhookconfigurations",
      scope: "Cluster",
      categories: ["api-extensions"],
      hasGeneration: true,
    }),
    defineResource({
      group: admission,
      version: "v1beta1",
      kind: "MutatingWebhookConfiguration",
      plural: "mutatingwebhookconfigurations",
      scope: "Cluster",
      categories: ["api-extensions"],
      hasGeneration: true,
      storedAs: sameShape(
        { group: admission, version: "v1beta1", kind: "MutatingWebhookConfiguration" },
        stored(admission, "v1", "mutatingwebhookconfigurations"),
      ),
    }),
    defineResource({
      group: admission,
      version: "v1beta1",
      kind: "ValidatingWebhookConfiguration",
      plural: "validatingwebhookconfigurations",
      scope: "Cluster",
      categories: ["api-extensions"],
      hasGeneration: true,
      storedAs: sameShape(
        { group: admission, version: "v1beta1", kind: "ValidatingWebhookConfiguration" },
        stored(admission, "v1", "validatingwebhookconfigurations"),
      ),
    }),
    // CEL admission policies: v1 (GA in 1.30) stores; kube serves v1beta1 and v1alpha1 (same fields)
    // only when --runtime-config turns them on.
    ...(["v1", "v1beta1", "v1alpha1"] as const).flatMap((version) =>
      (
        [
          ["ValidatingAdmissionPolicy", "validatingadmissionpolicies"],
          ["ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"],
        ] as const
      ).map(([kind, plural]) =>
        defineResource({
          group: admission,
          version,
          kind,
          plural,
          scope: "Cluster",
          categories: ["api-extensions"],
          hasGeneration: true,
          ...(kind === "ValidatingAdmissionPolicy" ? { subresources: ["status"] } : {}),
          ...(version === "v1" ? {} : { defaultOff: true, storedAs: sameShape({ group: admission, version, kind }, stored(admission, "v1", plural)) }),
          // v1beta1 is deprecated from 1.31 (kube's lifecycle tags); v1alpha1 left kube in 1.33 without a warning.
          ...(version === "v1beta1" ? { deprecation: { since: "1.31", removedIn: "1.34", replacement: `${admission}/v1` } } : {}),
        }),
      ),
    ),
    // API extensions: stored and validated; serving custom resources is a later issue
    defineResource({
      group: apiextensions,
      version: "v1",
      kind: "CustomResourceDefinition",
      plural: "customresourcedefinitions",
      scope: "Cluster",
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
      subresources: ["status"],
      hasGeneration: true,
      strategy: {
        // Every definition carries the cleanup finalizer: its custom objects are deleted before it goes.
        prepareForCreate(object) {
          const finalizer = `customresourcecleanup.${apiextensions}`;
          const finalizers = object.metadata.finalizers ?? [];
          if (!finalizers.includes(finalizer)) object.metadata.finalizers = [...finalizers, finalizer];
        },
      },
    }),
    // flow control
    defineResource({
      group: flowcontrol,
      version: "v1",
      kind: "FlowSchema",
      plural: "flowschemas",
      scope: "Cluster",
      subresources: ["status"],
      hasGeneration: true,
    }),
    defineResource({
      group: flowcontrol,
      version: "v1",
      kind: "PriorityLevelConfiguration",
      plural: "prioritylevelconfigurations",
      scope: "Cluster",
      subresources: ["status"],
      hasGeneration: true,
    }),
    // v1beta3: served by kube 1.30 from v1's storage, deprecated in 1.29 and gone in 1.32
    ...(["FlowSchema", "PriorityLevelConfiguration"] as const).map((kind) => {
      const plural = `${kind.toLowerCase()}s`;
      return defineResource({
        group: flowcontrol,
        version: "v1beta3",
        kind,
        plural,
        scope: "Cluster",
        subresources: ["status"],
        hasGeneration: true,
        deprecation: { since: "1.29", removedIn: "1.32", replacement: `${flowcontrol}/v1` },
        storedAs: sameShape({ group: flowcontrol, version: "v1beta3", kind }, stored(flowcontrol, "v1", plural)),
      });
    }),
  ];
}
