/**
 * Resource quantities (`500m`, `1.5Gi`, `2e3`): the number a quantity string stands for, for
 * comparisons (kube compares quantities by value, so `1` equals `1000m`). Undefined for text that
 * is not a quantity.
 */
const SUFFIXES: Readonly<Record<string, number>> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function quantityValue(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string") return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/.exec(value.trim());
  if (match === null) return undefined;
  const base = Number(match[1]);
  if (match[2] !== undefined) return base * 10 ** Number(match[2].slice(1));
  return base * (SUFFIXES[match[3] ?? ""] ?? 1);
}
