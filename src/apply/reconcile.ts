import type { FieldType } from "../api/schema/field-type.js";
import { type FieldSet, FieldSetBuilder } from "./field-set.js";
import type { PathElement } from "./path.js";
import { typeBelow } from "./typed.js";

/**
 * Brings a set recorded under an older schema in line with the current one, for the one
 * topology change that can be inferred: a field that became atomic is owned whole by whoever
 * owned anything inside it (later changes to it then conflict). The reverse change (atomic to
 * granular) cannot tell who owns which part, so the old member is left as is and nothing
 * conflicts. Untyped parts have no markers and are left alone. Returns the set itself when
 * nothing changes.
 */
export function reconcileWithSchema(set: FieldSet, type: FieldType): FieldSet {
  const collapse = new FieldSetBuilder();
  let found = false;
  const walk = (node: FieldSet, nodeType: FieldType, path: PathElement[]): void => {
    if (nodeType.kind === "untyped" || nodeType.kind === "scalar") return;
    for (const element of node.childElements()) {
      const below = typeBelow(nodeType, element);
      path.push(element);
      const atomic = (below.kind === "list" && below.listType === "atomic") || (below.kind === "map" && below.mapType === "atomic");
      if (atomic) {
        collapse.insert(path);
        found = true;
      } else {
        walk(node.withPrefix(element), below, path);
      }
      path.pop();
    }
  };
  walk(set, type, []);
  if (!found) return set;
  const atomicRoots = collapse.build();
  return set.recursiveDifference(atomicRoots).union(atomicRoots);
}
