import { quantityValue } from "../../api/quantity.js";

/** Resource quantities as numbers (kube compares them by value). */
export function amount(value: unknown): number | undefined {
  return quantityValue(value);
}

/** A ratio as kube's `%f` prints it. */
export function formatRatio(value: number): string {
  return value.toFixed(6);
}
