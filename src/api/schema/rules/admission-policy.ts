import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import { childPath, duplicate, forbidden, goStrings, indexPath, invalidValue, required } from "../field-path.js";
import { ruleWithOperationsErrors } from "./admission.js";
import { validateAdmissionPolicy } from "./admission-expressions.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * The structure of ValidatingAdmissionPolicies and their bindings beyond their expressions
 * (kube 1.30's validateValidatingAdmissionPolicySpec and …BindingSpec): a policy needs
 * `matchConstraints` with at least one resource rule and a well-formed `paramKind`; a binding
 * names a policy, a `paramRef` by name or selector (not both) with a not-found action, and at
 * least one validation action, none twice, not Deny with Warn.
 */

/** kube's validateNamedRuleWithOperations: resource names are path segments, each once; then the rule. */
function namedRuleErrors(rule: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  listAt(rule, "resourceNames").forEach((name, index) => {
    if (typeof name !== "string") return;
    const at = indexPath(childPath(path, "resourceNames"), index);
    for (const message of validateName(name, "path-segment")) errors.push(invalidValue(at, name, message));
    if (seen.has(name)) errors.push(duplicate(at, name));
    seen.add(name);
  });
  errors.push(...ruleWithOperationsErrors(rule, path));
  return errors;
}

/** kube's validateMatchResources (selectors and match policy are defaulted, so only the rules remain to check). */
function matchResourcesErrors(match: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (match === undefined) return [];
  const errors: FieldError[] = [];
  for (const name of ["resourceRules", "excludeResourceRules"])
    listAt(match, name).forEach((rule, index) => errors.push(...namedRuleErrors(rule, indexPath(childPath(path, name), index))));
  return errors;
}

/** kube's parseGroupVersion and validateParamKind. */
function paramKindErrors(paramKind: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = stringAt(paramKind, "apiVersion") ?? "";
  const versionAt = childPath(path, "apiVersion");
  if (apiVersion === "") errors.push(required(versionAt));
  else {
    const slashes = apiVersion.split("/").length - 1;
    if (slashes > 1) errors.push(invalidValue(versionAt, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else if (apiVersion !== "/") {
      const [group, version] = slashes === 0 ? ["", apiVersion] : [apiVersion.slice(0, apiVersion.indexOf("/")), apiVersion.slice(apiVersion.indexOf("/") + 1)];
      if (group !== "") {
        const messages = validateName(group, "dns1123-subdomain");
        if (messages.length > 0) errors.push(invalidValue(versionAt, group, messages.join(",")));
      }
      if (version === "") errors.push(invalidValue(versionAt, apiVersion, "version must be specified"));
      else {
        const messages = validateName(version, "dns1035-label");
        if (messages.length > 0) errors.push(invalidValue(versionAt, version, messages.join(",")));
      }
    }
  }
  const kind = stringAt(paramKind, "kind") ?? "";
  if (kind === "") errors.push(required(childPath(path, "kind")));
  else {
    const messages = validateName(kind.toLowerCase(), "dns1035-label");
    if (messages.length > 0) errors.push(invalidValue(childPath(path, "kind"), kind, `may have mixed case, but should otherwise match: ${messages.join(",")}`));
  }
  return errors;
}

/** ValidatingAdmissionPolicy (every served version): structure, then the expressions (admission-expressions.ts). */
export function validateAdmissionPolicyObject(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = recordAt(object, "spec") ?? {};
  const errors: FieldError[] = [];
  const paramKind = recordAt(spec, "paramKind");
  if (paramKind !== undefined) errors.push(...paramKindErrors(paramKind, "spec.paramKind"));
  const constraints = recordAt(spec, "matchConstraints");
  if (constraints === undefined) errors.push(required("spec.matchConstraints"));
  else {
    errors.push(...matchResourcesErrors(constraints, "spec.matchConstraints"));
    if (listAt(constraints, "resourceRules").length === 0) errors.push(required("spec.matchConstraints.resourceRules"));
  }
  return [...errors, ...validateAdmissionPolicy(object, old)];
}

/** kube's validateParamRef. */
function paramRefErrors(paramRef: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringAt(paramRef, "name") ?? "";
  const selector = recordAt(paramRef, "selector");
  if (name !== "") {
    for (const message of validateName(name, "path-segment")) errors.push(invalidValue(childPath(path, "name"), name, message));
    if (selector !== undefined) errors.push(forbidden(childPath(path, "name"), "name and selector are mutually exclusive"));
  }
  if (selector !== undefined && name !== "") errors.push(forbidden(childPath(path, "selector"), "name and selector are mutually exclusive"));
  if (name === "" && selector === undefined) errors.push(required(path, "one of name or selector must be specified"));
  if ((stringAt(paramRef, "parameterNotFoundAction") ?? "") === "") errors.push(required(childPath(path, "parameterNotFoundAction")));
  // an unknown action is the schema's enum error
  return errors;
}

/** ValidatingAdmissionPolicyBinding (every served version). */
export function validateAdmissionPolicyBinding(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec") ?? {};
  const errors: FieldError[] = [];
  const policyName = stringAt(spec, "policyName") ?? "";
  if (policyName === "") errors.push(required("spec.policyName"));
  else for (const message of validateName(policyName, "dns1123-subdomain")) errors.push(invalidValue("spec.policyName", policyName, message));
  const paramRef = recordAt(spec, "paramRef");
  if (paramRef !== undefined) errors.push(...paramRefErrors(paramRef, "spec.paramRef"));
  // kube 1.30 reports the binding's match resources under this misspelt path.
  errors.push(...matchResourcesErrors(recordAt(spec, "matchResources"), "spec.matchResouces"));
  const actions = listAt(spec, "validationActions");
  const seen = new Set<unknown>();
  actions.forEach((action, index) => {
    // Unknown actions are the schema's enum errors.
    if (seen.has(action)) errors.push(duplicate(indexPath("spec.validationActions", index), action));
    seen.add(action);
  });
  if (seen.has("Deny") && seen.has("Warn"))
    errors.push(
      invalidValue(
        "spec.validationActions",
        goStrings(actions, "admissionregistration.ValidationAction"),
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  if (actions.length === 0) errors.push(required("spec.validationActions", "at least one validation action is required"));
  return errors;
}
