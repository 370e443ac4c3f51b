/**
 * kube's quantity library: `quantity("1.5Gi")`, `isQuantity(s)`, and on a Quantity: `sign()`,
 * `isInteger()`, `asInteger()`, `asApproximateFloat()`, `add`/`sub` (Quantity or int),
 * `isGreaterThan`, `isLessThan`, `compareTo`. Values are held exactly as nano-units (bigint), the
 * finest scale a kube Quantity keeps; finer digits round up as kube's do.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;
const NANO = 10n ** 9n;
const INT64_MAX = 2n ** 63n - 1n;

/** A parsed quantity: an exact count of nano-units. */
export class Quantity {
  constructor(readonly nanos: bigint) {}
}

/** Parses kube quantity text into nano-units; undefined when the text is not a quantity. */
export function parseQuantity(text: string): Quantity | undefined {
  const match = PATTERN.exec(text);
  if (match === null) return undefined;
  const [, sign = "", number = "", suffix, exponent] = match;
  const [whole = "", fraction = ""] = number.split(".");
  let numerator = BigInt(`${whole || "0"}${fraction}`) * NANO;
  let denominator = 10n ** BigInt(fraction.length);
  if (suffix !== undefined && BINARY[suffix] !== undefined) numerator *= 2n ** BigInt(BINARY[suffix]);
  else {
    const power = suffix !== undefined ? (DECIMAL[suffix] ?? 0) : Number(exponent ?? "0");
    if (Math.abs(power) > 100) return undefined;
    if (power >= 0) numerator *= 10n ** BigInt(power);
    else denominator *= 10n ** BigInt(-power);
  }
  const nanos = (numerator + denominator - 1n) / denominator;
  return new Quantity(sign === "-" ? -nanos : nanos);
}

function required(text: string): Quantity {
  const parsed = parseQuantity(text);
  if (parsed === undefined) throw new EvaluationError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  return parsed;
}

function compare(a: Quantity, b: Quantity): bigint {
  return a.nanos === b.nanos ? 0n : a.nanos > b.nanos ? 1n : -1n;
}

/** Registers the quantity type and its functions on `env`. */
export function registerQuantityLibrary(env: Environment): void {
  env
    .registerType("kubernetes.Quantity", Quantity)
    .registerFunction("quantity(string): kubernetes.Quantity", required)
    .registerFunction("isQuantity(string): bool", (text: string) => parseQuantity(text) !== undefined)
    .registerFunction("kubernetes.Quantity.sign(): int", (q: Quantity) => (q.nanos === 0n ? 0n : q.nanos > 0n ? 1n : -1n))
    .registerFunction(
      "kubernetes.Quantity.isInteger(): bool",
      (q: Quantity) => q.nanos % NANO === 0n && q.nanos / NANO <= INT64_MAX && q.nanos / NANO >= -INT64_MAX - 1n,
    )
    .registerFunction("kubernetes.Quantity.asInteger(): int", (q: Quantity) => {
      if (q.nanos % NANO !== 0n) throw new EvaluationError("cannot convert value to integer");
      const value = q.nanos / NANO;
      if (value > INT64_MAX || value < -INT64_MAX - 1n) throw new EvaluationError("cannot convert value to integer");
      return value;
    })
    .registerFunction("kubernetes.Quantity.asApproximateFloat(): double", (q: Quantity) => Number(q.nanos) / 1e9)
    .registerFunction("kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity", (a: Quantity, b: Quantity) => new Quantity(a.nanos + b.nanos))
    .registerFunction("kubernetes.Quantity.add(int): kubernetes.Quantity", (a: Quantity, b: bigint) => new Quantity(a.nanos + b * NANO))
    .registerFunction("kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity", (a: Quantity, b: Quantity) => new Quantity(a.nanos - b.nanos))
    .registerFunction("kubernetes.Quantity.sub(int): kubernetes.Quantity", (a: Quantity, b: bigint) => new Quantity(a.nanos - b * NANO))
    .registerFunction("kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool", (a: Quantity, b: Quantity) => a.nanos > b.nanos)
    .registerFunction("kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool", (a: Quantity, b: Quantity) => a.nanos < b.nanos)
    .registerFunction("kubernetes.Quantity.compareTo(kubernetes.Quantity): int", compare)
    .registerOperator("kubernetes.Quantity == kubernetes.Quantity", (a: Quantity, b: Quantity) => a.nanos === b.nanos);
}
