import type { FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import { validateName } from "../../../api/validation.js";
import type { Strategy } from "../../definition.js";

type Errors = FieldError[];

function stringList(value: unknown, field: string, errors: Errors): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    errors.push({ type: "FieldValueInvalid", field, message: "Invalid value: must be a list of strings" });
    return [];
  }
  return value as string[];
}

function supported(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/** kube's `ValidatePolicyRule`. */
function validateRule(rule: unknown, namespaced: boolean, field: string, errors: Errors): void {
  if (!isPlainObject(rule)) {
    errors.push({ type: "FieldValueInvalid", field, message: "Invalid value: must be an object" });
    return;
  }
  const verbs = stringList(rule["verbs"], `${field}.verbs`, errors);
  const apiGroups = stringList(rule["apiGroups"], `${field}.apiGroups`, errors);
  const resources = stringList(rule["resources"], `${field}.resources`, errors);
  const resourceNames = stringList(rule["resourceNames"], `${field}.resourceNames`, errors);
  const urls = stringList(rule["nonResourceURLs"], `${field}.nonResourceURLs`, errors);
  if (verbs.length === 0)
    errors.push({ type: "FieldValueRequired", field: `${field}.verbs`, message: "Required value: verbs must contain at least one value" });
  if (urls.length > 0) {
    const shown = `[]string{${urls.map((url) => JSON.stringify(url)).join(", ")}}`;
    if (namespaced)
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}.nonResourceURLs`,
        message: `Invalid value: ${shown}: namespaced rules cannot apply to non-resource URLs`,
      });
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}.nonResourceURLs`,
        message: `Invalid value: ${shown}: rules cannot apply to both regular resources and non-resource URLs`,
      });
    }
    return;
  }
  if (apiGroups.length === 0)
    errors.push({ type: "FieldValueRequired", field: `${field}.apiGroups`, message: "Required value: resource rules must supply at least one api group" });
  if (resources.length === 0)
    errors.push({ type: "FieldValueRequired", field: `${field}.resources`, message: "Required value: resource rules must supply at least one resource" });
}

function validateRules(object: ApiObject, namespaced: boolean, errors: Errors): void {
  const rules = object["rules"];
  if (rules === undefined || rules === null) return;
  if (!Array.isArray(rules)) {
    errors.push({ type: "FieldValueInvalid", field: "rules", message: "Invalid value: must be a list" });
    return;
  }
  rules.forEach((rule, index) => validateRule(rule, namespaced, `rules[${index}]`, errors));
}

function validateAggregationRule(object: ApiObject, errors: Errors): void {
  const rule = object["aggregationRule"];
  if (rule === undefined || rule === null) return;
  if (!isPlainObject(rule)) {
    errors.push({ type: "FieldValueInvalid", field: "aggregationRule", message: "Invalid value: must be an object" });
    return;
  }
  const selectors = rule["clusterRoleSelectors"];
  if (!Array.isArray(selectors) || selectors.length === 0) {
    errors.push({
      type: "FieldValueRequired",
      field: "aggregationRule.clusterRoleSelectors",
      message: "Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
    });
    return;
  }
  selectors.forEach((selector, index) => {
    const field = `aggregationRule.clusterRoleSelectors[${index}]`;
    if (!isPlainObject(selector)) {
      errors.push({ type: "FieldValueInvalid", field, message: "Invalid value: must be a label selector" });
      return;
    }
    const labels = selector["matchLabels"];
    if (labels !== undefined && (!isPlainObject(labels) || !Object.values(labels).every((value) => typeof value === "string"))) {
      errors.push({ type: "FieldValueInvalid", field: `${field}.matchLabels`, message: "Invalid value: must be a map of strings" });
    }
    const expressions = selector["matchExpressions"];
    if (expressions !== undefined && !Array.isArray(expressions))
      errors.push({ type: "FieldValueInvalid", field: `${field}.matchExpressions`, message: "Invalid value: must be a list" });
    for (const [index2, expression] of (Array.isArray(expressions) ? expressions : []).entries()) {
      const operator = isPlainObject(expression) ? expression["operator"] : undefined;
      if (
        !isPlainObject(expression) ||
        typeof expression["key"] !== "string" ||
        (operator !== "In" && operator !== "NotIn" && operator !== "Exists" && operator !== "DoesNotExist")
      ) {
        errors.push({
          type: "FieldValueInvalid",
          field: `${field}.matchExpressions[${index2}]`,
          message: "Invalid value: must have a key and an operator In, NotIn, Exists or DoesNotExist",
        });
      }
    }
  });
}

/** Fills kube's v1 defaults: subjects' and roleRef's `apiGroup`. */
function defaultBinding(object: ApiObject, group: string): void {
  const roleRef = object["roleRef"];
  if (isPlainObject(roleRef) && (roleRef["apiGroup"] === undefined || roleRef["apiGroup"] === "")) roleRef["apiGroup"] = group;
  const subjects = object["subjects"];
  if (!Array.isArray(subjects)) return;
  for (const subject of subjects) {
    if (!isPlainObject(subject) || (subject["apiGroup"] !== undefined && subject["apiGroup"] !== "")) continue;
    if (subject["kind"] === "User" || subject["kind"] === "Group") subject["apiGroup"] = group;
  }
}

/** kube's `ValidateRoleBindingSubject`. */
function validateSubject(subject: unknown, namespaced: boolean, group: string, field: string, errors: Errors): void {
  if (!isPlainObject(subject)) {
    errors.push({ type: "FieldValueInvalid", field, message: "Invalid value: must be an object" });
    return;
  }
  const name = subject["name"];
  const apiGroup = typeof subject["apiGroup"] === "string" ? subject["apiGroup"] : "";
  if (typeof name !== "string" || name === "") errors.push({ type: "FieldValueRequired", field: `${field}.name`, message: "Required value" });
  switch (subject["kind"]) {
    case "ServiceAccount": {
      if (typeof name === "string" && name !== "") {
        for (const message of validateName(name, "dns1123-subdomain"))
          errors.push({ type: "FieldValueInvalid", field: `${field}.name`, message: `Invalid value: "${name}": ${message}` });
      }
      if (apiGroup !== "")
        errors.push({
          type: "FieldValueNotSupported",
          field: `${field}.apiGroup`,
          message: `Unsupported value: ${JSON.stringify(apiGroup)}: supported values: ""`,
        });
      const namespace = subject["namespace"];
      if (!namespaced && (typeof namespace !== "string" || namespace === ""))
        errors.push({ type: "FieldValueRequired", field: `${field}.namespace`, message: "Required value" });
      break;
    }
    case "User":
    case "Group":
      if (apiGroup !== group)
        errors.push({
          type: "FieldValueNotSupported",
          field: `${field}.apiGroup`,
          message: `Unsupported value: ${JSON.stringify(apiGroup)}: supported values: ${supported([group])}`,
        });
      break;
    default:
      errors.push({
        type: "FieldValueNotSupported",
        field: `${field}.kind`,
        message: `Unsupported value: ${JSON.stringify(subject["kind"] ?? "")}: supported values: ${supported(["ServiceAccount", "User", "Group"])}`,
      });
  }
}

function validateBinding(object: ApiObject, namespaced: boolean, group: string): Errors {
  const errors: Errors = [];
  const roleRef = isPlainObject(object["roleRef"]) ? object["roleRef"] : {};
  const apiGroup = typeof roleRef["apiGroup"] === "string" ? roleRef["apiGroup"] : "";
  if (apiGroup !== group)
    errors.push({
      type: "FieldValueNotSupported",
      field: "roleRef.apiGroup",
      message: `Unsupported value: ${JSON.stringify(apiGroup)}: supported values: ${supported([group])}`,
    });
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  const kind = roleRef["kind"];
  if (typeof kind !== "string" || !kinds.includes(kind))
    errors.push({
      type: "FieldValueNotSupported",
      field: "roleRef.kind",
      message: `Unsupported value: ${JSON.stringify(kind ?? "")}: supported values: ${supported(kinds)}`,
    });
  const name = roleRef["name"];
  if (typeof name !== "string" || name === "") errors.push({ type: "FieldValueRequired", field: "roleRef.name", message: "Required value" });
  else
    for (const message of validateName(name, "path-segment"))
      errors.push({ type: "FieldValueInvalid", field: "roleRef.name", message: `Invalid value: "${name}": ${message}` });
  const subjects = object["subjects"];
  if (subjects !== undefined && subjects !== null && !Array.isArray(subjects))
    errors.push({ type: "FieldValueInvalid", field: "subjects", message: "Invalid value: must be a list" });
  if (Array.isArray(subjects)) subjects.forEach((subject, index) => validateSubject(subject, namespaced, group, `subjects[${index}]`, errors));
  return errors;
}

function goRoleRef(value: unknown): string {
  const ref = isPlainObject(value) ? value : {};
  const text = (key: string): string => JSON.stringify(typeof ref[key] === "string" ? ref[key] : "");
  return `rbac.RoleRef{APIGroup:${text("apiGroup")}, Kind:${text("kind")}, Name:${text("name")}}`;
}

/** Role (namespaced) and ClusterRole: rules checked as kube does; ClusterRoles may aggregate. */
export function roleStrategy(options: { readonly namespaced: boolean }): Partial<Strategy> {
  const validate = (object: ApiObject): Errors => {
    const errors: Errors = [];
    validateRules(object, options.namespaced, errors);
    if (!options.namespaced) validateAggregationRule(object, errors);
    else if (object["aggregationRule"] !== undefined)
      errors.push({ type: "FieldValueForbidden", field: "aggregationRule", message: "Forbidden: only ClusterRoles may aggregate" });
    return errors;
  };
  return { validate, validateUpdate: (object) => validate(object) };
}

/** RoleBinding and ClusterRoleBinding: defaults, subject and roleRef checks; `roleRef` is immutable (422). */
export function bindingStrategy(options: { readonly namespaced: boolean; readonly group: string }): Partial<Strategy> {
  const { namespaced, group } = options;
  return {
    prepareForCreate: (object) => defaultBinding(object, group),
    prepareForUpdate: (object) => defaultBinding(object, group),
    validate: (object) => validateBinding(object, namespaced, group),
    validateUpdate(object, old) {
      const errors = validateBinding(object, namespaced, group);
      if (goRoleRef(object["roleRef"]) !== goRoleRef(old["roleRef"])) {
        errors.push({ type: "FieldValueInvalid", field: "roleRef", message: `Invalid value: ${goRoleRef(object["roleRef"])}: cannot change roleRef` });
      }
      return errors;
    },
  };
}
