/**
 * kube's semver library (kube 1.33, version 1): `isSemver(s)`, `isSemver(s, normalize)`,
 * `semver(s)`, `semver(s, normalize)` → `kubernetes.Semver`, and on it `major()`, `minor()`,
 * `patch()`, `compareTo(other)` (-1/0/1), `isGreaterThan(other)`, `isLessThan(other)`.
 *
 * Hand-written rather than the npm `semver` package: kube parses strictly (no `v` prefix, no
 * surrounding spaces, which npm's parser tolerates) and reports its own error texts; both are
 * reproduced here. Normalizing drops a leading `v`, leading zeros, and fills a missing minor or
 * patch with 0 (a short version may not carry pre-release or build data).
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

/** A parsed version; build metadata is kept but never compared. */
export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly prerelease: readonly string[],
    readonly build: readonly string[],
  ) {}
}

const DIGITS = /^[0-9]+$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]+$/;
const MAX_UINT64 = 2n ** 64n - 1n;

function number(part: string, what: string): bigint {
  if (!DIGITS.test(part)) throw new Error(`Invalid character(s) found in ${what} number "${part}"`);
  if (part.length > 1 && part.startsWith("0")) throw new Error(`${what[0]?.toUpperCase()}${what.slice(1)} number must not contain leading zeroes "${part}"`);
  const value = BigInt(part);
  if (value > MAX_UINT64) throw new Error(`strconv.ParseUint: parsing "${part}": value out of range`);
  return value;
}

/** Strict parsing, as kube's (blang/semver `Parse`); throws with its messages. */
export function parseSemver(text: string): Semver {
  if (text === "") throw new Error("Version string empty");
  const parts = text.split(".");
  if (parts.length < 3) throw new Error("No Major.Minor.Patch elements found");
  const [majorText = "", minorText = "", ...rest] = parts;
  let patchText = rest.join(".");
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchText.indexOf("+");
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split(".");
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf("-");
  if (dash >= 0) {
    prerelease = patchText.slice(dash + 1).split(".");
    patchText = patchText.slice(0, dash);
  }
  const major = number(majorText, "major");
  const minor = number(minorText, "minor");
  const patch = number(patchText, "patch");
  for (const identifier of prerelease) {
    if (identifier === "") throw new Error("Prerelease is empty");
    if (DIGITS.test(identifier) && identifier.length > 1 && identifier.startsWith("0"))
      throw new Error(`Numeric PreRelease version must not contain leading zeroes "${identifier}"`);
    if (!ALPHANUMERIC.test(identifier)) throw new Error(`Invalid character(s) found in prerelease "${identifier}"`);
  }
  for (const identifier of build) {
    if (identifier === "") throw new Error("Build meta data is empty");
    if (!ALPHANUMERIC.test(identifier)) throw new Error(`Invalid character(s) found in build meta data "${identifier}"`);
  }
  return new Semver(major, minor, patch, prerelease, build);
}

/** kube's normalizeAndParse: no `v` prefix, no leading zeros, missing minor/patch as 0. */
export function normalizeSemver(text: string): Semver {
  const parts = (text.startsWith("v") ? text.slice(1) : text).split(".");
  const head = parts.slice(0, 2);
  const tail = parts.slice(2).join(".");
  const pieces = parts.length > 2 ? [...head, tail] : head;
  const trimmed = pieces.map((part) => {
    if (part.length <= 1) return part;
    const stripped = part.replace(/^0+/, "");
    return stripped === "" || !/^[0-9]/.test(stripped) ? `0${stripped}` : stripped;
  });
  if (trimmed.length < 3) {
    if (/[+-]/.test(trimmed[trimmed.length - 1] ?? "")) throw new Error("short version cannot contain PreRelease/Build meta data");
    while (trimmed.length < 3) trimmed.push("0");
  }
  return parseSemver(trimmed.join("."));
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = DIGITS.test(a);
  const bNumeric = DIGITS.test(b);
  if (aNumeric && bNumeric) return BigInt(a) === BigInt(b) ? 0 : BigInt(a) > BigInt(b) ? 1 : -1;
  if (aNumeric) return -1;
  if (bNumeric) return 1;
  return a === b ? 0 : a > b ? 1 : -1;
}

/** Semantic-versioning precedence: -1, 0 or 1. */
export function compareSemver(a: Semver, b: Semver): number {
  for (const key of ["major", "minor", "patch"] as const) if (a[key] !== b[key]) return a[key] > b[key] ? 1 : -1;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    if (a.prerelease.length === b.prerelease.length) return 0;
    return a.prerelease.length === 0 ? 1 : -1;
  }
  for (let index = 0; index < Math.min(a.prerelease.length, b.prerelease.length); index++) {
    const order = compareIdentifiers(a.prerelease[index] ?? "", b.prerelease[index] ?? "");
    if (order !== 0) return order;
  }
  return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length > b.prerelease.length ? 1 : -1;
}

function parse(text: string, normalize: boolean): Semver {
  try {
    return normalize ? normalizeSemver(text) : parseSemver(text);
  } catch (error) {
    throw new EvaluationError(error instanceof Error ? error.message : String(error));
  }
}

function valid(text: string, normalize: boolean): boolean {
  try {
    parse(text, normalize);
    return true;
  } catch {
    return false;
  }
}

const T = "kubernetes.Semver";

/** Registers the semver type and functions on `env`. */
export function registerSemverLibrary(env: Environment): void {
  env
    .registerType(T, Semver)
    .registerFunction("isSemver(string): bool", (text: string) => valid(text, false))
    .registerFunction("isSemver(string, bool): bool", valid)
    .registerFunction(`semver(string): ${T}`, (text: string) => parse(text, false))
    .registerFunction(`semver(string, bool): ${T}`, parse)
    .registerFunction(`${T}.major(): int`, (version: Semver) => version.major)
    .registerFunction(`${T}.minor(): int`, (version: Semver) => version.minor)
    .registerFunction(`${T}.patch(): int`, (version: Semver) => version.patch)
    .registerFunction(`${T}.compareTo(${T}): int`, (a: Semver, b: Semver) => BigInt(compareSemver(a, b)))
    .registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: Semver, b: Semver) => compareSemver(a, b) > 0)
    .registerFunction(`${T}.isLessThan(${T}): bool`, (a: Semver, b: Semver) => compareSemver(a, b) < 0);
}
