import { canonicalJson } from "../../util/canonical-json.js";
import type { Record_ } from "./pod-spec.js";

/**
 * Whether toleration `wide` tolerates everything `narrow` does (kube's isSuperset): the same key
 * (or an empty key with `Exists`, which matches every key), the same effect (or none, which matches
 * every effect), for NoExecute a grace period no longer than `narrow`'s, and `Exists` or an equal
 * `Equal` value.
 */
function covers(wide: Record_, narrow: Record_): boolean {
  if (canonicalJson(wide) === canonicalJson(narrow)) return true;
  const key = wide["key"] ?? "";
  const operator = wide["operator"] ?? "";
  if ((narrow["key"] ?? "") !== key && (key !== "" || operator !== "Exists")) return false;
  const effect = wide["effect"] ?? "";
  if ((narrow["effect"] ?? "") !== effect && effect !== "") return false;
  if (effect === "NoExecute" && typeof wide["tolerationSeconds"] === "number") {
    const seconds = narrow["tolerationSeconds"];
    if (typeof seconds !== "number" || seconds > wide["tolerationSeconds"]) return false;
  }
  if (operator === "Exists") return true;
  if (operator === "Equal" || operator === "") return (narrow["operator"] ?? "") === "Equal" && (narrow["value"] ?? "") === (wide["value"] ?? "");
  return false;
}

/**
 * Two toleration lists merged as kube's MergeTolerations: in order, each kept unless one already
 * kept, or a different one later, tolerates everything it does (equal ones: the first stays).
 */
export function mergeTolerations(first: readonly Record_[], second: readonly Record_[]): Record_[] {
  const all = [...first, ...second];
  const merged: Record_[] = [];
  all.forEach((toleration, index) => {
    if (merged.some((kept) => covers(kept, toleration))) return;
    const text = canonicalJson(toleration);
    if (all.slice(index + 1).some((later) => canonicalJson(later) !== text && covers(later, toleration))) return;
    merged.push(toleration);
  });
  return merged;
}
