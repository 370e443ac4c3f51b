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

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const BINARY_SUFFIXES: readonly string[] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const INT64_MAX = 2n ** 63n - 1n;

export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** The pieces of a quantity's text, split the way apimachinery's parser splits it. */
interface QuantityParts {
  readonly positive: boolean;
  /** The whole-number digits with leading zeros removed ("0" when none are left). */
  readonly num: string;
  /** The digits after the decimal point, as written. */
  readonly denom: string;
  readonly suffix: string;
}

function splitQuantity(text: string): QuantityParts | undefined {
  let pos = 0;
  let positive = true;
  if (text[0] === "-" || text[0] === "+") {
    positive = text[0] === "+";
    pos = 1;
  }
  while (pos < text.length && text[pos] === "0") pos++;
  if (pos >= text.length) return { positive, num: "0", denom: "", suffix: "" };
  let start = pos;
  while (pos < text.length && isDigit(text[pos])) pos++;
  const num = pos === start ? "0" : text.slice(start, pos);
  let denom = "";
  if (text[pos] === ".") {
    start = ++pos;
    while (pos < text.length && isDigit(text[pos])) pos++;
    denom = text.slice(start, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && "eEinumkKMGTP".includes(text[pos] ?? "")) pos++;
  if (text[pos] === "-" || text[pos] === "+") pos++;
  while (pos < text.length && isDigit(text[pos])) pos++;
  if (pos < text.length) return undefined;
  return { positive, num, denom, suffix: text.slice(suffixStart) };
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}

/** The suffix as base, exponent and format; undefined for a suffix kube does not know. */
function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  const decimal = DECIMAL_EXPONENTS[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = BINARY_EXPONENTS[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    if (parsed > INT64_MAX || parsed < -INT64_MAX - 1n) return undefined;
    // Go keeps the exponent as an int32, wrapping larger ones.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

function trailingZeros(digits: bigint, factor: bigint): [bigint, number] {
  let times = 0;
  while (digits !== 0n && digits % factor === 0n) {
    digits /= factor;
    times++;
  }
  return [digits, times];
}

/** Whether digits × 10^exponent (digits ≥ 0) is below `limit`. */
function isBelow(digits: bigint, exponent: number, limit: bigint): boolean {
  if (exponent >= 0) return exponent > 40 ? digits === 0n : digits * 10n ** BigInt(exponent) < limit;
  if (-exponent > 400) return true;
  return digits < limit * 10n ** BigInt(-exponent);
}

/**
 * The text of a quantity whose value is sign × digits × 10^exponent (digits ≥ 0), written the
 * way apimachinery's CanonicalizeBytes writes it.
 */
function canonicalText(negative: boolean, digits: bigint, exponent: number, format: QuantityFormat): string {
  if (digits === 0n) return "0";
  const sign = negative ? "-" : "";
  if (format === "BinarySI") {
    // Between -1024 and 1024, or not a whole number: written as DecimalSI instead.
    const whole = exponent >= 0 || digits % 10n ** BigInt(-exponent) === 0n;
    if (!isBelow(digits, exponent, 1024n) && whole) {
      const value = exponent >= 0 ? digits * 10n ** BigInt(exponent) : digits / 10n ** BigInt(-exponent);
      const [mantissa, times] = trailingZeros(value, 1024n);
      return `${sign}${mantissa}${BINARY_SUFFIXES[times] ?? ""}`;
    }
    format = "DecimalSI";
  }
  let [mantissa, times] = trailingZeros(digits, 10n);
  exponent += times;
  while (((exponent % 3) + 3) % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return `${sign}${mantissa}${exponent === 0 ? "" : `e${exponent}`}`;
  // kube 1.30 writes no suffix at all past E (10^18): "1000E" comes back as "1".
  return `${sign}${mantissa}${DECIMAL_SUFFIXES[exponent] ?? ""}`;
}

/**
 * The format kube's parser gives a quantity: BinarySI for a binary suffix (`Ki` … `Ei`),
 * DecimalExponent for an exponent (`1e3`), DecimalSI otherwise (a decimal suffix, none, or a JSON
 * number). A sum of quantities keeps the format of its first non-zero addend (apimachinery's Add).
 */
export function quantityFormat(value: unknown): QuantityFormat {
  if (typeof value !== "string") return "DecimalSI";
  const parts = splitQuantity(value.trim());
  return (parts === undefined ? undefined : interpretSuffix(parts.suffix)?.format) ?? "DecimalSI";
}

/**
 * A computed amount (a sum of quantities, held as a number) written as kube's Quantity writes
 * a value of `format`: whole numbers exactly, fractions rounded to nanos. `1536Mi` summed from
 * `1Gi` and `512Mi` in BinarySI, `2G` from `1G` twice in DecimalSI, `1500m` from `1` and `500m`.
 */
export function formatQuantityIn(value: number, format: QuantityFormat): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (Number.isInteger(magnitude)) return canonicalText(value < 0, BigInt(magnitude), 0, format);
  return canonicalText(value < 0, BigInt(Math.round(magnitude * 1e9)), -9, format);
}

/**
 * Why kube's ParseQuantity refuses `text` (after its JSON decoding trims whitespace): `format` for
 * text that does not have a quantity's shape, `suffix` for an unknown suffix; undefined when kube
 * accepts it.
 */
export function quantityProblem(text: string): "format" | "suffix" | undefined {
  const str = text.trim();
  if (str === "") return "format";
  const parts = splitQuantity(str);
  if (parts === undefined) return "format";
  return interpretSuffix(parts.suffix) === undefined ? "suffix" : undefined;
}

/** ParseQuantity's ErrFormatWrong. */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** kube's parser's error for `text` (its decoder's words, without a field name); undefined when it accepts it. */
export function quantityError(text: string): string | undefined {
  const problem = quantityProblem(text);
  if (problem === "format") return QUANTITY_FORMAT_MESSAGE;
  if (problem === "suffix") return "unable to parse quantity's suffix";
  return undefined;
}

/** A quantity field's value as kube writes it back: a number's or a text's canonical string; text kube refuses is left for validation. */
export function canonicalQuantityValue(value: number | string): string {
  return typeof value === "number" ? canonicalQuantityText(value) : (canonicalQuantity(value) ?? value);
}

/**
 * The text kube answers for a quantity a client sent as `text`: apimachinery's ParseQuantity
 * followed by its serialization. Surrounding whitespace is trimmed (as its JSON decoding does);
 * the text is kept as written when the parser caches it (a whole mantissa with no trailing
 * "000", no leading zero and a power-of-1000 scale, or a binary suffix on a whole number that is
 * not a multiple of 8); otherwise the value, rounded up to nanos (BinarySI capped at 2^63-1), is
 * written with the largest suffix that keeps the mantissa whole. Undefined for text kube refuses.
 */
export function canonicalQuantity(text: string): string | undefined {
  const str = text.trim();
  if (str === "") return undefined;
  if (str === "0") return "0";
  const parts = splitQuantity(str);
  if (parts === undefined) return undefined;
  const suffix = interpretSuffix(parts.suffix);
  if (suffix === undefined) return undefined;
  const { num, denom, positive } = parts;
  let { format } = suffix;
  const binary = suffix.base === 2;
  const precision = binary ? (denom.length === 0 ? 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1 : -1) : 18 - (num.length + denom.length);
  const shifted = num + denom;
  if (precision >= 0) {
    const scale = (binary ? 0 : suffix.exponent) - denom.length;
    if (scale >= -9) {
      const value = BigInt(shifted);
      const result = binary ? value << BigInt(suffix.exponent) : value;
      if (result <= INT64_MAX) {
        const cached = binary ? (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        if (cached) return str;
        return canonicalText(!positive, result, scale, format);
      }
    }
  }
  // The exact path: the value as a decimal, rounded up to nanos, BinarySI capped at the maximum.
  let digits = BigInt(shifted);
  let exponent = -denom.length;
  if (binary) digits <<= BigInt(suffix.exponent);
  else exponent += suffix.exponent;
  if (digits !== 0n && exponent < -9) {
    const drop = -9 - exponent;
    if (drop > shifted.length + 30) digits = 1n;
    else {
      const divisor = 10n ** BigInt(drop);
      digits = (digits + divisor - 1n) / divisor;
    }
    exponent = -9;
  }
  if (format === "BinarySI" && !isBelow(digits, exponent, INT64_MAX + 1n)) {
    digits = INT64_MAX;
    exponent = 0;
  }
  if (format === "BinarySI" && digits !== 0n && isBelow(digits, exponent, 1n)) format = "DecimalSI";
  return canonicalText(!positive, digits, exponent, format);
}
