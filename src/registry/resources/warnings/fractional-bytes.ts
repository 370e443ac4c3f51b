/**
 * Byte quantities that are not whole bytes (`1500m` of memory): kube accepts them and warns,
 * printing the quantity in its canonical form. The value is kept exact (a big integer times a
 * power of ten), since a float cannot tell `1.0000001` from `1`.
 */

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_OF_EXPONENT: Readonly<Record<string, string>> = {
  "-9": "n",
  "-6": "u",
  "-3": "m",
  "0": "",
  "3": "k",
  "6": "M",
  "9": "G",
  "12": "T",
  "15": "P",
  "18": "E",
};

/** The usual spellings (`128Mi`, `1G`, `512`): whole bytes, decided without the exact arithmetic. */
const WHOLE = /^[+-]?\d+(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

interface ExactQuantity {
  /** value = mantissa × 10^exponent */
  readonly mantissa: bigint;
  readonly exponent: number;
  /** Written with an `e` exponent (kube keeps that format in the canonical form). */
  readonly scientific: boolean;
}

function parseExact(text: string): ExactQuantity | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/.exec(text.trim());
  if (match === null) return undefined;
  const [, sign = "", whole = "", fraction = "", scientific, suffix = ""] = match;
  if (whole === "" && fraction === "") return undefined;
  let mantissa = BigInt(`${whole}${fraction}` || "0");
  let exponent = -fraction.length;
  if (scientific !== undefined) exponent += Number(scientific.slice(1));
  else if (suffix in BINARY_SUFFIXES) mantissa *= 2n ** BigInt(BINARY_SUFFIXES[suffix] ?? 0);
  else exponent += DECIMAL_SUFFIXES[suffix] ?? 0;
  if (sign === "-") mantissa = -mantissa;
  return { mantissa, exponent, scientific: scientific !== undefined };
}

/** Integer division rounding up (towards +∞), as kube's MilliValue rounds. */
function ceilDiv(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  return value % divisor !== 0n && value > 0n ? quotient + 1n : quotient;
}

/** kube's canonical form of a decimal quantity: an integer mantissa with a suffix whose exponent is a multiple of 3. */
function canonical(quantity: ExactQuantity): string {
  let { mantissa, exponent } = quantity;
  if (mantissa === 0n) return "0";
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  // Below a nano the value is rounded up to nanos (kube's smallest scale).
  if (exponent < -9) {
    mantissa = ceilDiv(mantissa, 10n ** BigInt(-9 - exponent));
    exponent = -9;
  }
  let scale = Math.floor(exponent / 3) * 3;
  if (scale > 18) scale = 18;
  mantissa *= 10n ** BigInt(exponent - scale);
  if (quantity.scientific) return scale === 0 ? `${mantissa}` : `${mantissa}e${scale}`;
  return `${mantissa}${SUFFIX_OF_EXPONENT[String(scale)] ?? ""}`;
}

/**
 * The canonical text of a quantity that is not a whole number of bytes (its value in thousandths,
 * rounded up, is not a multiple of 1000 — kube's test), or undefined for whole bytes and for text
 * that is not a quantity.
 */
export function fractionalBytes(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return undefined;
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || WHOLE.test(text)) return undefined;
  const quantity = parseExact(text);
  if (quantity === undefined) return undefined;
  const shift = quantity.exponent + 3;
  const milli = shift >= 0 ? quantity.mantissa * 10n ** BigInt(shift) : ceilDiv(quantity.mantissa, 10n ** BigInt(-shift));
  if (milli % 1000n === 0n) return undefined;
  return canonical(quantity);
}
