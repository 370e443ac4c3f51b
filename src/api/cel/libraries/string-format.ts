/**
 * cel-go's strings extension at version 2 (kube's, 1.29 on): `strings.quote(s)` and
 * `<string>.format(<list>)` (printf-style clauses `%s %d %f %e %b %x %X %o` and `%%`, precision
 * as `%.3f`). Written here because the CEL library we use does not ship them; the rules and error
 * texts follow cel-go's documentation ("error during formatting: … was given <type>").
 * `reverse` (version 3) is not part of kube's environment and is not offered.
 */
import { EvaluationError } from "@marcbachmann/cel-js";
import { GO_C_ESCAPES } from "../../../util/go-escapes.js";

/** `strings.quote`: double-quoted, Go's C-style escapes, lone surrogates (invalid UTF-8) as U+FFFD. */
export function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += GO_C_ESCAPES[char] ?? (code >= 0xd800 && code <= 0xdfff ? "\uFFFD" : char);
  }
  return `${out}"`;
}

/** CEL type names for error messages. */
function typeName(value: unknown): string {
  if (value === null) return "null_type";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "double";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "list";
  if (value instanceof Date) return "google.protobuf.Timestamp";
  if (isUnsigned(value)) return "uint";
  if (isDuration(value)) return "google.protobuf.Duration";
  if (value instanceof Map || typeof value === "object") return "map";
  return typeof value;
}

function isUnsigned(value: unknown): boolean {
  return typeof value === "object" && value !== null && value.constructor?.name === "UnsignedInt";
}

function isDuration(value: unknown): boolean {
  return typeof value === "object" && value !== null && value.constructor?.name === "Duration";
}

/** An int or uint as a bigint; undefined for other values. */
function integer(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (isUnsigned(value)) return BigInt(String(value));
  return undefined;
}

function special(value: number): string | undefined {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  return undefined;
}

function formatError(message: string): EvaluationError {
  return new EvaluationError(`error during formatting: ${message}`);
}

/** `%s`: strings as they are, other values in CEL's printed form (lists/maps with quoted strings). */
function asString(value: unknown, nested: boolean): string {
  if (typeof value === "string") return nested ? JSON.stringify(value) : value;
  if (value === null) return "null";
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "number") return special(value) ?? String(value);
  if (isUnsigned(value)) return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  if (value instanceof Date) return value.toISOString().replace(/\.000Z$/, "Z");
  if (isDuration(value)) return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => asString(item, true)).join(", ")}]`;
  const entries: [string, string][] =
    value instanceof Map
      ? [...value.entries()].map(([key, item]) => [asString(key, true), asString(item, true)])
      : typeof value === "object"
        ? Object.entries(value as Record<string, unknown>).map(([key, item]) => [JSON.stringify(key), asString(item, true)])
        : [];
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${key}:${item}`).join(", ")}}`;
}

/** Go's `%e`: at least two exponent digits (`2.718280e+00`). */
function scientific(value: number, precision: number): string {
  const [mantissa, exponent = "+0"] = value.toExponential(precision).split("e");
  const sign = exponent.startsWith("-") ? "-" : "+";
  return `${mantissa}e${sign}${exponent.replace(/^[+-]/, "").padStart(2, "0")}`;
}

function hex(value: unknown): string {
  const whole = integer(value);
  if (whole !== undefined) return whole < 0n ? `-${(-whole).toString(16)}` : whole.toString(16);
  if (typeof value === "string") return Buffer.from(value, "utf8").toString("hex");
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  throw formatError(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(value)}`);
}

function clause(verb: string, value: unknown, precision: number | undefined): string {
  switch (verb) {
    case "s":
      return asString(value, false);
    case "d": {
      const whole = integer(value);
      if (whole !== undefined) return String(whole);
      if (typeof value === "number" && special(value) !== undefined) return special(value) ?? "";
      throw formatError(`decimal clause can only be used on integers, was given ${typeName(value)}`);
    }
    case "f":
      if (typeof value !== "number") throw formatError(`fixed-point clause can only be used on doubles, was given ${typeName(value)}`);
      return special(value) ?? value.toFixed(precision ?? 6);
    case "e":
      if (typeof value !== "number") throw formatError(`scientific clause can only be used on doubles, was given ${typeName(value)}`);
      return special(value) ?? scientific(value, precision ?? 6);
    case "b": {
      if (typeof value === "boolean") return value ? "1" : "0";
      const whole = integer(value);
      if (whole === undefined) throw formatError(`only integers and bools can be formatted as binary, was given ${typeName(value)}`);
      return whole < 0n ? `-${(-whole).toString(2)}` : whole.toString(2);
    }
    case "o": {
      const whole = integer(value);
      if (whole === undefined) throw formatError(`octal clause can only be used on integers, was given ${typeName(value)}`);
      return whole < 0n ? `-${(-whole).toString(8)}` : whole.toString(8);
    }
    case "x":
      return hex(value);
    case "X":
      return hex(value).toUpperCase();
    default:
      throw new EvaluationError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** `<string>.format(<list>)`: too few arguments, an unknown clause or a wrong type is an error. */
export function format(template: string, args: readonly unknown[]): string {
  let out = "";
  let next = 0;
  for (let index = 0; index < template.length; index++) {
    const char = template[index];
    if (char !== "%") {
      out += char;
      continue;
    }
    if (template[index + 1] === "%") {
      out += "%";
      index++;
      continue;
    }
    let precision: number | undefined;
    index++;
    if (template[index] === ".") {
      let digits = "";
      while (/[0-9]/.test(template[index + 1] ?? "")) digits += template[++index];
      if (digits === "") throw new EvaluationError("could not parse formatting clause: error while parsing precision: missing digits");
      precision = Number(digits);
      index++;
    }
    const verb = template[index];
    if (verb === undefined) throw new EvaluationError("could not parse formatting clause: unexpected end of string");
    if (next >= args.length) throw new EvaluationError(`index ${next} out of range`);
    out += clause(verb, args[next++], precision);
  }
  return out;
}
