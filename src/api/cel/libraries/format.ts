/**
 * kube's format library (kube 1.31): `format.dns1123Label()`, `format.dns1123Subdomain()`,
 * `format.dns1035Label()`, `format.qualifiedName()`, `format.dns1123LabelPrefix()`,
 * `format.dns1123SubdomainPrefix()`, `format.dns1035LabelPrefix()`, `format.labelValue()`,
 * `format.uri()`, `format.uuid()`, `format.byte()`, `format.date()`, `format.datetime()`, and
 * `format.named(name)` (an optional format). `<format>.validate(value)` is `optional.none()` when
 * the value is valid, else `optional.of(errors)` with kube's validation messages. The name rules
 * are the server's own (api/validation.ts), so a policy and the server agree.
 */
import { Optional, type Environment } from "@marcbachmann/cel-js";
import { validateLabelValue, validateName, validateQualifiedName } from "../../validation.js";

class FormatNamespace {}

/** A named format; `check` returns the errors of a value (none when valid). */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly check: (value: string) => string[],
  ) {}
}

/** kube's prefix variants accept a trailing `-` (a generateName prefix). */
function prefixed(check: (value: string) => string[]): (value: string) => string[] {
  return (value) => check(value.endsWith("-") ? `${value.slice(0, -1)}a` : value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function validDate(value: string): boolean {
  const match = DATE.exec(value);
  if (match === null) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function uriErrors(value: string): string[] {
  // Go's url.ParseRequestURI: an absolute URI or an absolute path.
  if (value.startsWith("/")) return [];
  try {
    new URL(value);
    return [];
  } catch {
    return [`invalid URI: parse "${value}": invalid URI for request`];
  }
}

const FORMATS: ReadonlyMap<string, NamedFormat> = new Map(
  [
    new NamedFormat("dns1123Label", (value) => validateName(value, "dns1123-label")),
    new NamedFormat("dns1123Subdomain", (value) => validateName(value, "dns1123-subdomain")),
    new NamedFormat("dns1035Label", (value) => validateName(value, "dns1035-label")),
    new NamedFormat("qualifiedName", validateQualifiedName),
    new NamedFormat(
      "dns1123LabelPrefix",
      prefixed((value) => validateName(value, "dns1123-label")),
    ),
    new NamedFormat(
      "dns1123SubdomainPrefix",
      prefixed((value) => validateName(value, "dns1123-subdomain")),
    ),
    new NamedFormat(
      "dns1035LabelPrefix",
      prefixed((value) => validateName(value, "dns1035-label")),
    ),
    new NamedFormat("labelValue", validateLabelValue),
    new NamedFormat("uri", uriErrors),
    new NamedFormat("uuid", (value) => (UUID.test(value) ? [] : ["does not match the UUID format"])),
    new NamedFormat("byte", (value) => (BASE64.test(value) ? [] : ["invalid base64"])),
    new NamedFormat("date", (value) => (validDate(value) ? [] : ["invalid date"])),
    new NamedFormat("datetime", (value) => (DATETIME.test(value) && !Number.isNaN(Date.parse(value)) ? [] : ["invalid datetime"])),
  ].map((format) => [format.name, format]),
);

/** Registers the `format` namespace and the Format type on `env`. */
export function registerFormatLibrary(env: Environment): void {
  const N = "kubernetes.FormatNamespace";
  const F = "kubernetes.NamedFormat";
  env.registerType(N, FormatNamespace).registerType(F, NamedFormat).registerConstant("format", N, new FormatNamespace());
  for (const format of FORMATS.values()) env.registerFunction(`${N}.${format.name}(): ${F}`, () => format);
  env
    .registerFunction(`${N}.named(string): optional<${F}>`, (_: FormatNamespace, name: string) => {
      const format = FORMATS.get(name);
      return format === undefined ? Optional.none() : Optional.of(format);
    })
    .registerFunction(`${F}.validate(string): optional<list<string>>`, (format: NamedFormat, value: string) => {
      const errors = format.check(value);
      return errors.length === 0 ? Optional.none() : Optional.of(errors);
    });
}
