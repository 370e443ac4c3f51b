/**
 * kube's API approval policy for CustomResourceDefinitions (KEP 1111): a definition in a group the
 * Kubernetes project owns (the Kubernetes profile's API and key domains and their subdomains) must
 * carry the `api-approved.<key domain>` annotation, a URL or a reason starting with `unapproved`.
 * Written for those group names themselves, so it holds under either product profile. On update a
 * state left as it was is never refused, as kube lets a controller keep updating an old definition.
 */
import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import { KUBERNETES_PROFILE } from "../../profile.js";
import { goQuote } from "../../../util/go-escapes.js";
import { invalidValue, required } from "../field-path.js";

const ANNOTATION = `api-approved.${KUBERNETES_PROFILE.keyDomain}`;
const PROTECTED = [KUBERNETES_PROFILE.apiDomain, KUBERNETES_PROFILE.keyDomain];
const FIELD = `metadata.annotations[${ANNOTATION}]`;
const SEE = "see https://github.com/kubernetes/enhancements/pull/1111";

type ApprovalState = "missing" | "bypassed" | "approved" | "invalid";

/** kube's IsProtectedCommunityGroup. */
export function isProtectedCommunityGroup(group: string): boolean {
  return PROTECTED.some((domain) => group === domain || group.endsWith(`.${domain}`));
}

function approvalState(object: ApiObject): { state: ApprovalState; value: string } {
  const value = object.metadata.annotations?.[ANNOTATION] ?? "";
  if (value === "") return { state: "missing", value };
  if (value.startsWith("unapproved")) return { state: "bypassed", value };
  // Go's url.ParseRequestURI with a scheme and a host
  let url: URL | undefined;
  try {
    url = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  return { state: url !== undefined && url.host !== "" ? "approved" : "invalid", value };
}

/** The approval errors of `object` in `group` (`old` on update). */
export function apiApprovalErrors(object: ApiObject, group: string, old: ApiObject | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(group)) return [];
  const { state, value } = approvalState(object);
  if (old !== undefined && approvalState(old).state === state) return [];
  if (state === "missing") return [required(FIELD, `protected groups must have approval annotation "${ANNOTATION}", ${SEE}`)];
  if (state === "invalid")
    return [
      invalidValue(
        FIELD,
        value,
        `protected groups must have approval annotation "${ANNOTATION}" with either a URL or a reason starting with "unapproved", ${SEE}`,
      ),
    ];
  return [];
}

/** A CustomResourceDefinition condition as the CRD controllers write it (no transition time). */
export interface ApprovalCondition {
  readonly type: "KubernetesAPIApprovalPolicyConformant";
  readonly status: "True" | "False";
  readonly reason: "ApprovedAnnotation" | "UnapprovedAnnotation" | "MissingAnnotation" | "InvalidAnnotation";
  readonly message: string;
}

/**
 * kube's KubernetesAPIApprovalPolicyConformant condition of a definition in a protected group
 * (its API approval controller, from GetAPIApprovalState's state and reason); undefined for any
 * other group, where kube sets no such condition. `group` is the definition's `spec.group`.
 */
export function apiApprovalCondition(object: ApiObject, group: string): ApprovalCondition | undefined {
  if (!isProtectedCommunityGroup(group)) return undefined;
  const { state, value } = approvalState(object);
  const type = "KubernetesAPIApprovalPolicyConformant";
  switch (state) {
    case "approved":
      return { type, status: "True", reason: "ApprovedAnnotation", message: `approved in ${value}` };
    case "bypassed":
      return { type, status: "False", reason: "UnapprovedAnnotation", message: `not approved: ${goQuote(value)}` };
    case "missing":
      return { type, status: "False", reason: "MissingAnnotation", message: `protected groups must have approval annotation ${goQuote(ANNOTATION)}, ${SEE}` };
    case "invalid":
      return {
        type,
        status: "False",
        reason: "InvalidAnnotation",
        message: `protected groups must have approval annotation ${goQuote(ANNOTATION)} with either a URL or a reason starting with "unapproved", ${SEE}`,
      };
  }
}
