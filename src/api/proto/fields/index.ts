import { parseMessages, type ParsedMessages, type ProtoMessages } from "../messages.js";
import { ADMISSIONREGISTRATION_V1, admissionPolicyMessages } from "./admissionregistration-v1.js";
import { ADMISSIONREGISTRATION_V1BETA1 } from "./admissionregistration-v1beta1.js";
import { APIEXTENSIONS_V1 } from "./apiextensions-v1.js";
import { APIREGISTRATION_V1 } from "./apiregistration-v1.js";
import { APPS_V1 } from "./apps-v1.js";
import { AUTHENTICATION_V1 } from "./authentication-v1.js";
import { AUTHENTICATION_V1BETA1 } from "./authentication-v1beta1.js";
import { AUTHORIZATION_V1 } from "./authorization-v1.js";
import { AUTOSCALING_V1 } from "./autoscaling-v1.js";
import { AUTOSCALING_V2 } from "./autoscaling-v2.js";
import { BATCH_V1 } from "./batch-v1.js";
import { BATCH_V1BETA1 } from "./batch-v1beta1.js";
import { CERTIFICATES_V1 } from "./certificates-v1.js";
import { COORDINATION_V1 } from "./coordination-v1.js";
import { CORE_V1 } from "./core-v1.js";
import { DISCOVERY_V1 } from "./discovery-v1.js";
import { DISCOVERY_V1BETA1 } from "./discovery-v1beta1.js";
import { EVENTS_V1 } from "./events-v1.js";
import { EVENTS_V1BETA1 } from "./events-v1beta1.js";
import { FLOWCONTROL_V1, FLOWCONTROL_V1BETA3 } from "./flowcontrol-v1.js";
import { IMAGEPOLICY_V1ALPHA1 } from "./imagepolicy-v1alpha1.js";
import { META_V1 } from "./meta-v1.js";
import { NETWORKING_V1 } from "./networking-v1.js";
import { NODE_V1 } from "./node-v1.js";
import { NODE_V1BETA1 } from "./node-v1beta1.js";
import { POLICY_V1 } from "./policy-v1.js";
import { POLICY_V1BETA1 } from "./policy-v1beta1.js";
import { RBAC_V1 } from "./rbac-v1.js";
import { SCHEDULING_V1 } from "./scheduling-v1.js";
import { STORAGE_V1 } from "./storage-v1.js";

/** Every data file of this folder, one per package version. */
export const PROTO_MESSAGE_FILES: readonly ProtoMessages[] = [
  ADMISSIONREGISTRATION_V1,
  { ...ADMISSIONREGISTRATION_V1BETA1, ...admissionPolicyMessages("v1beta1") },
  admissionPolicyMessages("v1alpha1"),
  APIEXTENSIONS_V1,
  APIREGISTRATION_V1,
  APPS_V1,
  AUTHENTICATION_V1,
  AUTHENTICATION_V1BETA1,
  AUTHORIZATION_V1,
  AUTOSCALING_V1,
  AUTOSCALING_V2,
  BATCH_V1,
  BATCH_V1BETA1,
  CERTIFICATES_V1,
  COORDINATION_V1,
  CORE_V1,
  DISCOVERY_V1,
  DISCOVERY_V1BETA1,
  EVENTS_V1,
  EVENTS_V1BETA1,
  FLOWCONTROL_V1,
  FLOWCONTROL_V1BETA3,
  IMAGEPOLICY_V1ALPHA1,
  META_V1,
  NETWORKING_V1,
  NODE_V1,
  NODE_V1BETA1,
  POLICY_V1,
  POLICY_V1BETA1,
  RBAC_V1,
  SCHEDULING_V1,
  STORAGE_V1,
];

let parsed: ParsedMessages | undefined;

/** All built-in messages, parsed on first use. */
export function builtinProtoMessages(): ParsedMessages {
  parsed ??= parseMessages(PROTO_MESSAGE_FILES);
  return parsed;
}
