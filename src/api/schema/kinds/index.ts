import type { SchemaNode } from "../node.js";
import { ADMISSION_POLICY_DEFINITIONS, ADMISSION_POLICY_KINDS } from "./admission-policy.js";
import { ADMISSIONREGISTRATION_DEFINITIONS, ADMISSIONREGISTRATION_KINDS } from "./admissionregistration.js";
import { APIEXTENSIONS_KINDS, apiextensionsDefinitions } from "./apiextensions.js";
import { APIREGISTRATION_DEFINITIONS, APIREGISTRATION_KINDS } from "./apiregistration.js";
import { APPS_DEFINITIONS, APPS_KINDS } from "./apps.js";
import { AUTH_DEFINITIONS, AUTH_KINDS } from "./auth.js";
import { AUTOSCALING_DEFINITIONS, AUTOSCALING_KINDS } from "./autoscaling.js";
import { BATCH_DEFINITIONS, BATCH_KINDS } from "./batch.js";
import { CERTIFICATES_DEFINITIONS, CERTIFICATES_KINDS } from "./certificates.js";
import { CLUSTER_DEFINITIONS, CLUSTER_KINDS } from "./cluster.js";
import { CORE_DEFINITIONS, CORE_KINDS } from "./core.js";
import { CORE_POD_DEFINITIONS } from "./core-pod.js";
import { CORE_VOLUME_DEFINITIONS } from "./core-volumes.js";
import { FLOWCONTROL_DEFINITIONS, FLOWCONTROL_KINDS } from "./flowcontrol.js";
import { IMAGEPOLICY_DEFINITIONS, IMAGEPOLICY_KINDS } from "./imagepolicy.js";
import type { KindDeclaration } from "./kind-declaration.js";
import { META_DEFINITIONS } from "./meta.js";
import { NETWORKING_DEFINITIONS, NETWORKING_KINDS } from "./networking.js";
import { POLICY_DEFINITIONS, POLICY_KINDS } from "./policy.js";
import { RBAC_DEFINITIONS, RBAC_KINDS } from "./rbac.js";
import { STORAGE_DEFINITIONS, STORAGE_KINDS } from "./storage.js";

export type { KindDeclaration } from "./kind-declaration.js";

/** Every built-in definition by catalogue id; JSONSchemaProps spells the given extension prefixes. */
export function builtinDefinitions(extensionPrefixes: readonly string[]): Map<string, SchemaNode> {
  return new Map(
    Object.entries({
      ...META_DEFINITIONS,
      ...CORE_POD_DEFINITIONS,
      ...CORE_VOLUME_DEFINITIONS,
      ...CORE_DEFINITIONS,
      ...APPS_DEFINITIONS,
      ...BATCH_DEFINITIONS,
      ...AUTOSCALING_DEFINITIONS,
      ...POLICY_DEFINITIONS,
      ...NETWORKING_DEFINITIONS,
      ...STORAGE_DEFINITIONS,
      ...CLUSTER_DEFINITIONS,
      ...RBAC_DEFINITIONS,
      ...CERTIFICATES_DEFINITIONS,
      ...ADMISSIONREGISTRATION_DEFINITIONS,
      ...ADMISSION_POLICY_DEFINITIONS,
      ...apiextensionsDefinitions(extensionPrefixes),
      ...APIREGISTRATION_DEFINITIONS,
      ...FLOWCONTROL_DEFINITIONS,
      ...AUTH_DEFINITIONS,
      ...IMAGEPOLICY_DEFINITIONS,
    }),
  );
}

/** Every built-in kind with a schema, at every version served. */
export const BUILTIN_KINDS: readonly KindDeclaration[] = [
  ...CORE_KINDS,
  ...APPS_KINDS,
  ...BATCH_KINDS,
  ...AUTOSCALING_KINDS,
  ...POLICY_KINDS,
  ...NETWORKING_KINDS,
  ...STORAGE_KINDS,
  ...CLUSTER_KINDS,
  ...RBAC_KINDS,
  ...CERTIFICATES_KINDS,
  ...ADMISSIONREGISTRATION_KINDS,
  ...ADMISSION_POLICY_KINDS,
  ...APIEXTENSIONS_KINDS,
  ...APIREGISTRATION_KINDS,
  ...FLOWCONTROL_KINDS,
  ...AUTH_KINDS,
];

/**
 * Kinds the server exchanges with webhooks but does not serve (ImageReview): they have schemas and
 * field numbers like served kinds, and no resource, discovery entry or OpenAPI path.
 */
export const EXCHANGED_KINDS: readonly KindDeclaration[] = [...IMAGEPOLICY_KINDS];
