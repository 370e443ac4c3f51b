import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { forbidden, invalidValue } from "../field-path.js";
import { recordAt, semanticallyEqual } from "./values.js";

/**
 * kube's update rules of the workload kinds: what their strategies' ValidateUpdate refuses to
 * change once the object exists (a selector, a StatefulSet's claims, a Job's pod template…).
 */

const IMMUTABLE = "field is immutable";

/** A Go string literal as `%#v` writes one (label keys and values need no other escapes). */
function goString(value: unknown): string {
  return JSON.stringify(typeof value === "string" ? value : String(value));
}

/** A `map[string]string` as Go's `%#v` writes it (keys sorted; absent: `map[string]string(nil)`), as kube's field errors show label maps. */
export function goStringMap(map: Record<string, unknown> | undefined): string {
  if (map === undefined) return "map[string]string(nil)";
  return `map[string]string{${Object.keys(map)
    .sort()
    .map((key) => `${goString(key)}:${goString(map[key])}`)
    .join(", ")}}`;
}

/**
 * A LabelSelector as kube's messages show it: Go's `%#v` of the typed value (map keys sorted, nil
 * maps and lists spelled `(nil)`), e.g. `v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`.
 */
export function goLabelSelector(selector: Record<string, unknown>): string {
  const labels = recordAt(selector, "matchLabels");
  const matchLabels =
    labels === undefined
      ? "map[string]string(nil)"
      : `map[string]string{${Object.keys(labels)
          .sort()
          .map((key) => `${goString(key)}:${goString(labels[key])}`)
          .join(", ")}}`;
  const expressions = selector["matchExpressions"];
  const matchExpressions = !Array.isArray(expressions)
    ? "[]v1.LabelSelectorRequirement(nil)"
    : `[]v1.LabelSelectorRequirement{${expressions
        .map((expression) => {
          const values = isPlainObject(expression) ? expression["values"] : undefined;
          const shownValues = Array.isArray(values) ? `[]string{${values.map(goString).join(", ")}}` : "[]string(nil)";
          const key = isPlainObject(expression) ? expression["key"] : "";
          const operator = isPlainObject(expression) ? expression["operator"] : "";
          return `v1.LabelSelectorRequirement{Key:${goString(key ?? "")}, Operator:${goString(operator ?? "")}, Values:${shownValues}}`;
        })
        .join(", ")}}`;
  return `v1.LabelSelector{MatchLabels:${matchLabels}, MatchExpressions:${matchExpressions}}`;
}

/** `spec.selector` may not change (apps/v1 Deployments, ReplicaSets, DaemonSets; Jobs). */
function selectorUnchanged(object: ApiObject, old: ApiObject): FieldError[] {
  const selector = recordAt(object, "spec")?.["selector"];
  if (semanticallyEqual(selector, recordAt(old, "spec")?.["selector"])) return [];
  const shown = isPlainObject(selector) ? goLabelSelector(selector) : "null";
  return [{ type: "FieldValueInvalid", field: "spec.selector", message: `Invalid value: ${shown}: ${IMMUTABLE}` }];
}

/** The apps/v1 kinds whose selector is fixed at create. */
export function validateSelectorUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  return old === undefined ? [] : selectorUnchanged(object, old);
}

/** The StatefulSet spec fields an update may change (kube 1.30's list, in its message's words). */
const STATEFULSET_MUTABLE = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "revisionHistoryLimit",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
];

export function validateStatefulSetUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const strip = (spec: Record<string, unknown> | undefined): Record<string, unknown> => {
    const rest: Record<string, unknown> = { ...spec };
    for (const name of STATEFULSET_MUTABLE) delete rest[name];
    return rest;
  };
  if (semanticallyEqual(strip(recordAt(object, "spec")), strip(recordAt(old, "spec")))) return [];
  return [
    forbidden(
      "spec",
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** Fields of a Job's spec fixed at create (besides the selector and the template). */
const JOB_IMMUTABLE = ["completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"];

/**
 * A Job's pod template without what a suspended Job that never started may still change (kube's
 * mutable scheduling directives): node affinity, node selector, tolerations, scheduling gates,
 * labels and annotations.
 */
function templateFixedPart(template: Record<string, unknown> | undefined): unknown {
  if (template === undefined) return undefined;
  const metadata: Record<string, unknown> = { ...recordAt(template, "metadata") };
  delete metadata["labels"];
  delete metadata["annotations"];
  const spec: Record<string, unknown> = { ...recordAt(template, "spec") };
  for (const name of ["nodeSelector", "tolerations", "schedulingGates"]) delete spec[name];
  const affinity = recordAt(spec, "affinity");
  if (affinity !== undefined) {
    const rest: Record<string, unknown> = { ...affinity };
    delete rest["nodeAffinity"];
    spec["affinity"] = rest;
  }
  return { ...template, metadata, spec };
}

/** kube's ValidateJobSpecUpdate: selector, template (but for a suspended Job never started), completions of a non-indexed Job, and the fields above. */
export function validateJobUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const spec = recordAt(object, "spec");
  const oldSpec = recordAt(old, "spec");
  const errors: FieldError[] = [];
  const completions = spec?.["completions"];
  if (!semanticallyEqual(completions, oldSpec?.["completions"])) {
    if (spec?.["completionMode"] !== "Indexed") errors.push(invalidValue("spec.completions", completions ?? null, IMMUTABLE));
    else if (completions !== undefined && completions !== null && completions !== spec?.["parallelism"])
      errors.push(invalidValue("spec.completions", completions, "can only be modified in tandem with spec.parallelism"));
  }
  errors.push(...selectorUnchanged(object, old));
  const template = recordAt(spec, "template");
  const oldTemplate = recordAt(oldSpec, "template");
  const schedulingMutable = oldSpec?.["suspend"] === true && recordAt(old, "status")?.["startTime"] === undefined;
  const unchanged = schedulingMutable
    ? semanticallyEqual(templateFixedPart(template), templateFixedPart(oldTemplate))
    : semanticallyEqual(template, oldTemplate);
  if (!unchanged) errors.push(invalidValue("spec.template", template ?? null, IMMUTABLE));
  for (const name of JOB_IMMUTABLE) {
    if (!semanticallyEqual(spec?.[name], oldSpec?.[name])) errors.push(invalidValue(`spec.${name}`, spec?.[name] ?? null, IMMUTABLE));
  }
  return errors;
}
