import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import type { DefinitionValidator, ValidationContext } from "../validate.js";
import { webhookConfigurationValidator } from "./admission.js";
import { validateApiService } from "./apiregistration.js";
import { validateAdmissionPolicyBinding, validateAdmissionPolicyObject } from "./admission-policy.js";
import { validateCertificateSigningRequest } from "./certificates.js";
import { priorityLevelDefaulter, priorityLevelValidator, validateFlowSchema } from "./flowcontrol.js";
import { validateCoreEvent, validateEventsV1, validateEventsV1beta1 } from "./events.js";
import { validateEndpointSlice, validateEndpoints } from "./endpoints.js";
import { EXTENSION_DEFAULTERS, EXTENSION_KIND_VALIDATORS } from "./extensions.js";
import { POD_DEFAULTERS } from "./pods.js";
import { VOLUME_DEFAULTERS } from "./pod-volumes.js";
import { defaultLimitRange, validateLimitRange, validateResourceQuota } from "./quotas.js";
import { validateLabelSelector } from "./selectors.js";
import { SERVICE_DEFAULTERS, validateServiceUpdate } from "./services.js";
import { NETWORKING_DEFAULTERS, NETWORKING_KIND_VALIDATORS, NETWORKING_VALIDATORS } from "./networking.js";
import { WORKLOAD_CONTEXTS, WORKLOAD_DEFAULTERS, WORKLOAD_KIND_VALIDATORS, WORKLOAD_VALIDATORS } from "./workloads.js";
import {
  CLUSTER_DEFAULTERS,
  validateCsiDriverUpdate,
  validateEndpointSliceUpdate,
  validateIngressClassUpdate,
  validateLease,
  validatePriorityClassUpdate,
  validateRuntimeClassUpdate,
} from "./cluster-updates.js";
import {
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
  validateStorageClassUpdate,
  validateVolumeAttachment,
} from "./storage-updates.js";

/** A kind's rules that need the whole object, and on update the stored one. */
export type KindValidator = (object: ApiObject, old: ApiObject | undefined) => FieldError[];

/**
 * The rules beyond what a schema states, by catalogue id: defaulters and validators of
 * definitions (run wherever the definition occurs, e.g. PodSpec inside every pod template) and
 * validators of whole kinds.
 */
export interface SchemaRules {
  readonly defaulters: ReadonlyMap<string, DefinitionDefaulter>;
  readonly validators: ReadonlyMap<string, DefinitionValidator>;
  readonly kindValidators: ReadonlyMap<string, KindValidator>;
  /** What a kind tells its definitions' validators about the whole object (none for most kinds). */
  readonly contexts?: ReadonlyMap<string, (object: ApiObject) => ValidationContext>;
}

export const BUILTIN_RULES: SchemaRules = {
  defaulters: new Map(
    Object.entries({
      ...WORKLOAD_DEFAULTERS,
      ...NETWORKING_DEFAULTERS,
      ...EXTENSION_DEFAULTERS,
      ...POD_DEFAULTERS,
      ...VOLUME_DEFAULTERS,
      ...SERVICE_DEFAULTERS,
      ...CLUSTER_DEFAULTERS,
      "core.v1.LimitRange": defaultLimitRange,
      "flowcontrol.v1.PriorityLevelConfiguration": priorityLevelDefaulter("v1"),
      "flowcontrol.v1beta3.PriorityLevelConfiguration": priorityLevelDefaulter("v1beta3"),
    }),
  ),
  validators: new Map(Object.entries({ ...WORKLOAD_VALIDATORS, ...NETWORKING_VALIDATORS, "meta.v1.LabelSelector": validateLabelSelector })),
  contexts: new Map(Object.entries(WORKLOAD_CONTEXTS)),
  kindValidators: new Map<string, KindValidator>([
    ...Object.entries(WORKLOAD_KIND_VALIDATORS),
    ...Object.entries(NETWORKING_KIND_VALIDATORS),
    ...Object.entries(EXTENSION_KIND_VALIDATORS),
    ["core.v1.Service", validateServiceUpdate],
    ["apiregistration.v1.APIService", validateApiService],
    ["core.v1.ResourceQuota", validateResourceQuota],
    ["core.v1.LimitRange", validateLimitRange],
    ["core.v1.PersistentVolume", validatePersistentVolumeUpdate],
    ["core.v1.PersistentVolumeClaim", validatePersistentVolumeClaimUpdate],
    ["storage.v1.StorageClass", validateStorageClassUpdate],
    ["storage.v1.CSIDriver", validateCsiDriverUpdate],
    ["storage.v1.VolumeAttachment", validateVolumeAttachment],
    ["scheduling.v1.PriorityClass", validatePriorityClassUpdate],
    ["networking.v1.IngressClass", validateIngressClassUpdate],
    ["node.v1.RuntimeClass", validateRuntimeClassUpdate],
    ["coordination.v1.Lease", validateLease],
    ["node.v1beta1.RuntimeClass", validateRuntimeClassUpdate],
    ["core.v1.Endpoints", validateEndpoints],
    ["discovery.v1.EndpointSlice", (object, old) => [...validateEndpointSlice(object), ...validateEndpointSliceUpdate(object, old)]],
    ["discovery.v1beta1.EndpointSlice", (object, old) => [...validateEndpointSlice(object), ...validateEndpointSliceUpdate(object, old)]],
    ["certificates.v1.CertificateSigningRequest", validateCertificateSigningRequest],
    ["events.v1.Event", validateEventsV1],
    ["events.v1beta1.Event", validateEventsV1beta1],
    ["core.v1.Event", validateCoreEvent],
    ["flowcontrol.v1.FlowSchema", validateFlowSchema],
    ["flowcontrol.v1beta3.FlowSchema", validateFlowSchema],
    ["flowcontrol.v1.PriorityLevelConfiguration", priorityLevelValidator("v1")],
    ["flowcontrol.v1beta3.PriorityLevelConfiguration", priorityLevelValidator("v1beta3")],
    ["admissionregistration.v1.MutatingWebhookConfiguration", webhookConfigurationValidator("v1")],
    ["admissionregistration.v1.ValidatingWebhookConfiguration", webhookConfigurationValidator("v1")],
    ["admissionregistration.v1beta1.MutatingWebhookConfiguration", webhookConfigurationValidator("v1beta1")],
    ["admissionregistration.v1beta1.ValidatingWebhookConfiguration", webhookConfigurationValidator("v1beta1")],
    ...["v1", "v1beta1", "v1alpha1"].flatMap((version): [string, KindValidator][] => [
      [`admissionregistration.${version}.ValidatingAdmissionPolicy`, validateAdmissionPolicyObject],
      [`admissionregistration.${version}.ValidatingAdmissionPolicyBinding`, validateAdmissionPolicyBinding],
    ]),
  ]),
};
