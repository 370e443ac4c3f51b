import { isPlainObject, type ApiObject } from "../../api/object.js";

/** A CustomResourceDefinition's names (`spec.names` / `status.acceptedNames`). */
export interface Names {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

/** The outcome of kube's naming check for one definition. */
export type NamesCheck =
  | { readonly accepted: true; readonly names: Names }
  | { readonly accepted: false; readonly reason: string; readonly message: string; readonly names: Names | undefined };

export function readNames(value: unknown): Names | undefined {
  if (!isPlainObject(value) || typeof value["plural"] !== "string" || value["plural"] === "") return undefined;
  const kind = typeof value["kind"] === "string" ? value["kind"] : "";
  const strings = (key: string): string[] => (Array.isArray(value[key]) ? value[key].filter((item): item is string => typeof item === "string") : []);
  return {
    plural: value["plural"],
    singular: typeof value["singular"] === "string" && value["singular"] !== "" ? value["singular"] : kind.toLowerCase(),
    kind,
    listKind: typeof value["listKind"] === "string" && value["listKind"] !== "" ? value["listKind"] : `${kind}List`,
    shortNames: strings("shortNames"),
    categories: strings("categories"),
  };
}

/** Names already taken in a group: by other definitions' accepted names, or by built-in resources. */
export interface TakenNames {
  readonly resources: ReadonlySet<string>;
  readonly kinds: ReadonlySet<string>;
}

/**
 * kube's naming controller for one definition: its requested names are accepted unless a
 * plural, singular or short name is already a resource name in the group, or the kind or list
 * kind already a kind there (then the previously accepted names, if any, stay served).
 */
export function checkNames(crd: ApiObject, taken: TakenNames): NamesCheck {
  const spec = isPlainObject(crd["spec"]) ? crd["spec"] : {};
  const requested = readNames(spec["names"]);
  const status = isPlainObject(crd["status"]) ? crd["status"] : {};
  const previous = readNames(status["acceptedNames"]);
  if (requested === undefined) return { accepted: false, reason: "NoNames", message: "spec.names.plural is empty", names: previous };
  const conflict = (reason: string, name: string): NamesCheck => ({ accepted: false, reason, message: `"${name}" is already in use`, names: previous });
  if (taken.resources.has(requested.plural)) return conflict("PluralConflict", requested.plural);
  if (taken.resources.has(requested.singular)) return conflict("SingularConflict", requested.singular);
  for (const shortName of requested.shortNames) if (taken.resources.has(shortName)) return conflict("ShortNamesConflict", shortName);
  if (taken.kinds.has(requested.kind)) return conflict("KindConflict", requested.kind);
  if (taken.kinds.has(requested.listKind)) return conflict("ListKindConflict", requested.listKind);
  return { accepted: true, names: requested };
}

/** Adds a definition's accepted names to what its group has taken. */
export function take(taken: { resources: Set<string>; kinds: Set<string> }, names: Names): void {
  taken.resources.add(names.plural);
  taken.resources.add(names.singular);
  for (const shortName of names.shortNames) taken.resources.add(shortName);
  taken.kinds.add(names.kind);
  taken.kinds.add(names.listKind);
}
