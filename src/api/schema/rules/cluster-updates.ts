import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, duplicate, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { typedLocalObjectReferenceErrors } from "./networking.js";
import { listAt, recordAt, semanticallyEqual, stringAt } from "./values.js";

/**
 * kube's update rules of cluster-wide kinds whose defining fields are fixed once created:
 * PriorityClass `value` and `preemptionPolicy`, IngressClass `spec.controller`, RuntimeClass
 * `handler`, EndpointSlice `addressType`, CSIDriver `attachRequired`, `fsGroupPolicy` and
 * `volumeLifecycleModes`. Paths and wording are kube's (including its `spec.attachedRequired`).
 */

const IMMUTABLE = "field is immutable";

function immutable(path: string, value: unknown, oldValue: unknown): FieldError[] {
  return semanticallyEqual(value, oldValue) ? [] : [invalidValue(path, value ?? null, IMMUTABLE)];
}

/** The built-in PriorityClasses: the only names the `system-` prefix may take, with these values. */
const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = { "system-node-critical": 2000001000, "system-cluster-critical": 2000000000 };
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;

/** kube's ValidatePriorityClass (create): the `system-` prefix is reserved, user values stop at one billion. */
function validatePriorityClass(object: ApiObject): FieldError[] {
  const name = object.metadata.name ?? "";
  const value = typeof object["value"] === "number" ? object["value"] : 0;
  if (name.startsWith("system-")) {
    const known = SYSTEM_PRIORITY_CLASSES[name];
    const problem =
      known === undefined
        ? `${name} is not a known system priority class`
        : known !== value
          ? `value of ${name} PriorityClass must be ${known}`
          : object["globalDefault"] === true
            ? `globalDefault of ${name} PriorityClass must be false`
            : undefined;
    return problem === undefined
      ? []
      : [forbidden("metadata.name", `priority class names with 'system-' prefix are reserved for system use only. error: ${problem}`)];
  }
  if (value > HIGHEST_USER_DEFINABLE_PRIORITY)
    return [forbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`)];
  return [];
}

export function validatePriorityClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validatePriorityClass(object);
  const errors: FieldError[] = [];
  if (object["value"] !== old["value"]) errors.push(forbidden("value", "may not be changed in an update."));
  errors.push(...immutable("preemptionPolicy", object["preemptionPolicy"], old["preemptionPolicy"]));
  return errors;
}

/** kube's IsDomainPrefixedPath (an IngressClass controller): `<DNS subdomain>/<HTTP path>`. */
function domainPrefixedPathErrors(value: string, path: string): FieldError[] {
  if (value === "") return [required(path)];
  const slash = value.indexOf("/");
  if (slash <= 0 || slash === value.length - 1) return [invalidValue(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, slash);
  const rest = value.slice(slash + 1);
  const errors = validateName(host, "dns1123-subdomain").map((message) => invalidValue(path, host, message));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest))
    errors.push(invalidValue(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  return errors;
}

/** kube's validateIngressClassParametersReference: kind and name, and a namespace exactly when the scope is Namespace. */
function ingressClassParametersErrors(parameters: Record<string, unknown>, path: string): FieldError[] {
  const errors = typedLocalObjectReferenceErrors(parameters, path);
  const scope = stringAt(parameters, "scope");
  const namespace = stringAt(parameters, "namespace");
  if (scope === "Namespace") {
    if (namespace === undefined) errors.push(required(childPath(path, "namespace"), "`parameters.scope` is set to 'Namespace'"));
    else for (const message of validateName(namespace, "dns1123-label")) errors.push(invalidValue(childPath(path, "namespace"), namespace, message));
  }
  if (scope === "Cluster" && namespace !== undefined) errors.push(forbidden(childPath(path, "namespace"), "`parameters.scope` is set to 'Cluster'"));
  return errors;
}

/** kube's ValidateIngressClass (create and update), then on update the fixed controller. */
export function validateIngressClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors = domainPrefixedPathErrors(stringAt(spec, "controller") ?? "", "spec.controller");
  const parameters = recordAt(spec, "parameters");
  if (parameters !== undefined) errors.push(...ingressClassParametersErrors(parameters, "spec.parameters"));
  if (old === undefined) return errors;
  return [...errors, ...immutable("spec.controller", spec?.["controller"], recordAt(old, "spec")?.["controller"])];
}

/** kube's ValidateRuntimeClass: the handler is a DNS label (on create and update), fixed once set. */
export function validateRuntimeClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const handler = object["handler"];
  const errors =
    typeof handler === "string" && handler !== "" ? validateName(handler, "dns1123-label").map((message) => invalidValue("handler", handler, message)) : [];
  return old === undefined ? errors : [...errors, ...immutable("handler", handler, old["handler"])];
}

/** kube's ValidateLeaseSpec: a positive duration, a non-negative transition count (create and update). */
/**
 * A Lease's `strategy` and `preferredHolder` (kube 1.31+) belong to the alpha
 * CoordinatedLeaderElection gate, off by default: kube's strategy drops them from every write
 * while it is off (and this server has no such gate), so they are never stored.
 */
const dropCoordinatedLeaderElectionFields: DefinitionDefaulter = (object) => {
  const spec = object["spec"];
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) return;
  const fields = spec as Record<string, unknown>;
  delete fields["strategy"];
  delete fields["preferredHolder"];
};

/** kube's SetDefaults_CSIDriver tests the modes' length: an empty list is defaulted as an absent one is. */
const defaultCsiDriver: DefinitionDefaulter = (object) => {
  const spec = recordAt(object, "spec");
  const modes = spec?.["volumeLifecycleModes"];
  if (spec !== undefined && Array.isArray(modes) && modes.length === 0) spec["volumeLifecycleModes"] = ["Persistent"];
};

export const CLUSTER_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "coordination.v1.Lease": dropCoordinatedLeaderElectionFields,
  "storage.v1.CSIDriver": defaultCsiDriver,
};

export function validateLease(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors: FieldError[] = [];
  const duration = spec?.["leaseDurationSeconds"];
  if (typeof duration === "number" && duration <= 0) errors.push(invalidValue("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  const transitions = spec?.["leaseTransitions"];
  if (typeof transitions === "number" && transitions < 0) errors.push(invalidValue("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  return errors;
}

export function validateEndpointSliceUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  return old === undefined ? [] : immutable("addressType", object["addressType"], old["addressType"]);
}

/** kube's validateTokenRequests: each audience once, expirations from 10 minutes to 2^32 seconds. */
function tokenRequestErrors(spec: Record<string, unknown> | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const audiences = new Set<string>();
  listAt(spec, "tokenRequests").forEach((request, index) => {
    const at = indexPath("spec.tokenRequests", index);
    const audience = stringAt(request, "audience") ?? "";
    if (audiences.has(audience)) {
      errors.push(duplicate(childPath(at, "audience"), audience));
      return;
    }
    audiences.add(audience);
    const seconds = isPlainObject(request) ? request["expirationSeconds"] : undefined;
    if (typeof seconds !== "number") return;
    if (seconds < 600) errors.push(invalidValue(childPath(at, "expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"));
    if (seconds > 2 ** 32) errors.push(invalidValue(childPath(at, "expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"));
  });
  return errors;
}

export function validateCsiDriverUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors = tokenRequestErrors(spec);
  if (old === undefined) return errors;
  const oldSpec = recordAt(old, "spec");
  return [
    ...errors,
    ...immutable("spec.attachedRequired", spec?.["attachRequired"], oldSpec?.["attachRequired"]),
    ...immutable("spec.fsGroupPolicy", spec?.["fsGroupPolicy"], oldSpec?.["fsGroupPolicy"]),
    ...immutable("spec.volumeLifecycleModes", spec?.["volumeLifecycleModes"], oldSpec?.["volumeLifecycleModes"]),
  ];
}
