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

const DECIMAL_SUFFIXES: Readonly<Record<number, string>> = { [-9]: "n", [-6]: "u", [-3]: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };

/**
 * kube's canonical text of a quantity given as a JSON number (`cpu: 1`, `memory: 1.5` in YAML):
 * kube parses it as a decimal quantity, rounds it up to nanos, and always writes it back as a
 * string with the largest SI suffix that keeps the mantissa whole: `1` → "1", `1.5` → "1500m",
 * `0.1` → "100m", `2000` → "2k". Numbers are read through their shortest decimal text, exactly.
 */
export function canonicalQuantityText(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(value)));
  if (match === null) return String(value);
  const fraction = match[2] ?? "";
  // value = digits × 10^exponent, exactly.
  let digits = BigInt(`${match[1]}${fraction}`);
  let exponent = Number(match[3] ?? "0") - fraction.length;
  if (exponent < -9) {
    const divisor = 10n ** BigInt(-9 - exponent);
    digits = (digits + divisor - 1n) / divisor;
    exponent = -9;
  }
  // Scale up to the next multiple of three, then take out whole thousands while a suffix exists.
  while (((exponent % 3) + 3) % 3 !== 0) {
    digits *= 10n;
    exponent -= 1;
  }
  while (digits !== 0n && digits % 1000n === 0n && exponent < 18) {
    digits /= 1000n;
    exponent += 3;
  }
  while (exponent > 18) {
    digits *= 1000n;
    exponent -= 3;
  }
  if (digits === 0n) return "0";
  return `${value < 0 ? "-" : ""}${digits}${DECIMAL_SUFFIXES[exponent] ?? ""}`;
}
