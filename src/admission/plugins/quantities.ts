import { quantityValue } from "../../api/quantity.js";

/** Resource quantities as numbers, and back as kube writes them (cpu in cores or millicores; bytes in binary units). */
export function amount(value: unknown): number | undefined {
  return quantityValue(value);
}

const BINARY: readonly [string, number][] = [
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", 2 ** 20],
  ["Ki", 2 ** 10],
];

/** A number as a quantity string: whole numbers plain, fractions in milli-units, large byte counts in binary units. */
export function formatQuantity(value: number): string {
  if (Number.isInteger(value)) {
    for (const [suffix, factor] of BINARY) if (value >= factor && value % factor === 0) return `${value / factor}${suffix}`;
    return String(value);
  }
  return `${Math.round(value * 1000)}m`;
}

/** A ratio as kube's `%f` prints it. */
export function formatRatio(value: number): string {
  return value.toFixed(6);
}
