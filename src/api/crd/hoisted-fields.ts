import { isPlainObject } from "../object.js";
import { jsonEqual } from "./json-schema.js";

/** The per-version fields kube moves to the spec when every version says the same. */
export type HoistedField = "schema" | "subresources" | "additionalPrinterColumns";

/** Where kube's internal (hub) form keeps each hoisted field once every version carries the same value. */
const TOP_LEVEL: Readonly<Record<HoistedField, string>> = {
  schema: "spec.validation",
  subresources: "spec.subresources",
  additionalPrinterColumns: "spec.additionalPrinterColumns",
};

/** One place a per-version field is validated: its path, the versions it stands for, and its value. */
export interface HoistedSite {
  readonly path: string;
  /** The first version index it stands for (every index when hoisted). */
  readonly index: number;
  readonly value: unknown;
}

/**
 * kube validates a v1 CustomResourceDefinition in its internal form, where a per-version field
 * (schema, subresources, printer columns) that all versions share — a single version's always —
 * sits once at the top of the spec: its errors read `spec.validation.openAPIV3Schema…`,
 * `spec.subresources…`, `spec.additionalPrinterColumns[0]…`, and are reported once. Otherwise
 * each version's own value is checked at `spec.versions[i].<field>`. An absent field is no site.
 */
export function hoistedSites(versions: readonly unknown[], field: HoistedField): HoistedSite[] {
  const values = versions.map((version) => (isPlainObject(version) ? version[field] : undefined));
  const empty = (value: unknown): boolean =>
    value === undefined || value === null || (field === "additionalPrinterColumns" && Array.isArray(value) && value.length === 0);
  const first = values[0];
  if (values.length > 0 && values.every((value) => (empty(value) && empty(first)) || jsonEqual(value, first)))
    return empty(first) ? [] : [{ path: TOP_LEVEL[field], index: 0, value: first }];
  const sites: HoistedSite[] = [];
  values.forEach((value, index) => {
    if (!empty(value)) sites.push({ path: `spec.versions[${index}].${field}`, index, value });
  });
  return sites;
}

/** Whether kube's internal form holds this field once, at the top of the spec. */
export function isHoisted(versions: readonly unknown[], field: HoistedField): boolean {
  return hoistedSites(versions, field)[0]?.path === TOP_LEVEL[field];
}
