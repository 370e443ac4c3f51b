/**
 * CEL's sets extension as kube enables it: `sets.contains(list, list)` (every element of the
 * second is in the first), `sets.equivalent(list, list)` (the same elements, ignoring order and
 * repeats), `sets.intersects(list, list)` (at least one element in common). Elements compare with
 * CEL equality (numbers across int, uint and double).
 */
import type { Environment } from "@marcbachmann/cel-js";

class SetsNamespace {}

/** CEL equality for set elements: numbers by value across kinds, the rest structurally. */
function equal(a: unknown, b: unknown): boolean {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b;
  if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) return Number(a) === Number(b);
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => equal(item, b[index]));
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) if (!b.has(key) || !equal(value, b.get(key))) return false;
    return true;
  }
  const left = Object.entries(a);
  const right = b as Record<string, unknown>;
  return left.length === Object.keys(right).length && left.every(([key, value]) => key in right && equal(value, right[key]));
}

function contains(list: readonly unknown[], sub: readonly unknown[]): boolean {
  return sub.every((item) => list.some((other) => equal(item, other)));
}

/** Registers the `sets` namespace on `env`. */
export function registerSetsLibrary(env: Environment): void {
  env
    .registerType("kubernetes.SetsNamespace", SetsNamespace)
    .registerConstant("sets", "kubernetes.SetsNamespace", new SetsNamespace())
    .registerFunction("kubernetes.SetsNamespace.contains(list, list): bool", (_: SetsNamespace, list: readonly unknown[], sub: readonly unknown[]) =>
      contains(list, sub),
    )
    .registerFunction(
      "kubernetes.SetsNamespace.equivalent(list, list): bool",
      (_: SetsNamespace, a: readonly unknown[], b: readonly unknown[]) => contains(a, b) && contains(b, a),
    )
    .registerFunction("kubernetes.SetsNamespace.intersects(list, list): bool", (_: SetsNamespace, a: readonly unknown[], b: readonly unknown[]) =>
      a.some((item) => b.some((other) => equal(item, other))),
    );
}
