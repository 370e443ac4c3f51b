import { cloneObject, isPlainObject, type ApiObject } from "../../api/object.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { covers } from "./covers.js";
import { rulesOf, subjectsOf } from "./policy.js";

/** What start-up reconciliation does to one default object. */
export type ReconcileAction =
  | { readonly kind: "none" }
  | { readonly kind: "create"; readonly object: ApiObject }
  | { readonly kind: "update"; readonly object: ApiObject }
  /** Delete and create again: a binding whose roleRef differs (roleRef is immutable). */
  | { readonly kind: "recreate"; readonly object: ApiObject };

function isProtected(existing: ApiObject, autoupdateAnnotation: string): boolean {
  return existing.metadata.annotations?.[autoupdateAnnotation] === "false";
}

/** Expected labels and annotations added where missing; the existing values win. */
function mergeMetadata(target: ApiObject, expected: ApiObject): void {
  for (const field of ["labels", "annotations"] as const) {
    const wanted = expected.metadata[field];
    if (wanted === undefined) continue;
    target.metadata[field] = { ...wanted, ...target.metadata[field] };
  }
}

function selectorsOf(object: ApiObject): unknown[] | undefined {
  const rule = object["aggregationRule"];
  if (!isPlainObject(rule)) return undefined;
  const selectors = rule["clusterRoleSelectors"];
  return Array.isArray(selectors) ? selectors : [];
}

/**
 * kube's union reconciliation of a default role: create it when missing; otherwise add the
 * expected labels, annotations, rules (those the existing rules do not cover) and aggregation
 * selectors that are missing, keeping whatever the user added. An aggregated role's rules are
 * the aggregation controller's, not reconciled here. `autoupdate: "false"` leaves it alone.
 */
export function reconcileRole(expected: ApiObject, existing: ApiObject | undefined, autoupdateAnnotation: string): ReconcileAction {
  if (existing === undefined) return { kind: "create", object: cloneObject(expected) };
  if (isProtected(existing, autoupdateAnnotation)) return { kind: "none" };
  const result = cloneObject(existing);
  mergeMetadata(result, expected);
  const expectedSelectors = selectorsOf(expected);
  if (expectedSelectors === undefined) {
    delete result["aggregationRule"];
    // An expected rule stored verbatim covers itself: only the others are broken down and
    // checked (kube's Covers costs pieces × rules, and every start reconciles every default role).
    const existingRules = rulesOf(existing);
    const stored = new Set(existingRules.map((rule) => canonicalJson(rule)));
    const missing = covers(
      existingRules,
      rulesOf(expected).filter((rule) => !stored.has(canonicalJson(rule))),
    ).missing;
    if (missing.length > 0) result["rules"] = [...(Array.isArray(existing["rules"]) ? existing["rules"] : []), ...missing.map((rule) => ({ ...rule }))];
  } else {
    const have = selectorsOf(existing) ?? [];
    const haveText = new Set(have.map((selector) => canonicalJson(selector)));
    const missing = expectedSelectors.filter((selector) => !haveText.has(canonicalJson(selector)));
    if (missing.length > 0 || selectorsOf(existing) === undefined) result["aggregationRule"] = { clusterRoleSelectors: [...have, ...missing] };
  }
  return canonicalJson(result) === canonicalJson(existing) ? { kind: "none" } : { kind: "update", object: result };
}

/**
 * kube's union reconciliation of a default binding: create it when missing, recreate it when its
 * roleRef differs, otherwise add missing subjects, labels and annotations, keeping extra subjects.
 */
export function reconcileBinding(expected: ApiObject, existing: ApiObject | undefined, autoupdateAnnotation: string): ReconcileAction {
  if (existing === undefined) return { kind: "create", object: cloneObject(expected) };
  if (isProtected(existing, autoupdateAnnotation)) return { kind: "none" };
  if (canonicalJson(existing["roleRef"]) !== canonicalJson(expected["roleRef"])) return { kind: "recreate", object: cloneObject(expected) };
  const result = cloneObject(existing);
  mergeMetadata(result, expected);
  const have = new Set(subjectsOf(existing).map((subject) => canonicalJson(subject)));
  const missing = subjectsOf(expected).filter((subject) => !have.has(canonicalJson(subject)));
  if (missing.length > 0)
    result["subjects"] = [...(Array.isArray(existing["subjects"]) ? existing["subjects"] : []), ...missing.map((subject) => ({ ...subject }))];
  return canonicalJson(result) === canonicalJson(existing) ? { kind: "none" } : { kind: "update", object: result };
}
