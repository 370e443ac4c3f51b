/**
 * kube's lists library: `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)`
 * on lists of comparable values (int, uint, double, string, bool, bytes, duration, timestamp).
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

function key(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (value !== null && typeof value === "object" && "valueOf" in value) return value.valueOf();
  return value;
}

function compare(a: unknown, b: unknown): number {
  const left = key(a);
  const right = key(b);
  if ((typeof left === "bigint" || typeof left === "number") && (typeof right === "bigint" || typeof right === "number")) {
    return left < right ? -1 : left > right ? 1 : 0;
  }
  if (typeof left === "string" && typeof right === "string") return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === "boolean" && typeof right === "boolean") return Number(left) - Number(right);
  throw new EvaluationError("no such overload: values are not comparable");
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "object" && typeof b === "object")
    return (
      JSON.stringify(a, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ===
      JSON.stringify(b, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))
    );
  return false;
}

function extreme(list: readonly unknown[], sign: 1 | -1): unknown {
  if (list.length === 0) throw new EvaluationError("min called on empty list");
  let best = list[0];
  for (const item of list) if (compare(item, best) * sign > 0) best = item;
  return best;
}

/** Registers the list functions on `env`. */
export function registerListsLibrary(env: Environment): void {
  env
    .registerFunction("list<T>.isSorted(): bool", (list: readonly unknown[]) => list.every((item, index) => index === 0 || compare(list[index - 1], item) <= 0))
    .registerFunction("list<int>.sum(): int", (list: readonly bigint[]) => list.reduce((total, item) => total + item, 0n))
    .registerFunction("list<double>.sum(): double", (list: readonly number[]) => list.reduce((total, item) => total + item, 0))
    .registerFunction("list<T>.min(): T", (list: readonly unknown[]) => extreme(list, -1))
    .registerFunction("list<T>.max(): T", (list: readonly unknown[]) => extreme(list, 1))
    .registerFunction("list<T>.indexOf(T): int", (list: readonly unknown[], value: unknown) => BigInt(list.findIndex((item) => same(item, value))))
    .registerFunction("list<T>.lastIndexOf(T): int", (list: readonly unknown[], value: unknown) => {
      for (let index = list.length - 1; index >= 0; index--) if (same(list[index], value)) return BigInt(index);
      return -1n;
    });
}
