import type { FieldError } from "../../api/errors.js";
import { LEVELS, type Level } from "./pod-security-checks.js";

export const MODES = ["enforce", "audit", "warn"] as const;
export type Mode = (typeof MODES)[number];

/** One mode's level and version, printed as kube does: `restricted:latest`. */
export interface Policy {
  readonly level: Level;
  readonly version: string;
}
export type Policies = Readonly<Record<Mode, Policy>>;

/** A namespace's policies and the label errors found reading them (empty when the labels are valid). */
export interface NamespacePolicies {
  readonly policies: Policies;
  readonly errors: readonly FieldError[];
}

export function isLevel(value: unknown): value is Level {
  return typeof value === "string" && (LEVELS as readonly string[]).includes(value);
}

export function isVersion(value: string): boolean {
  return value === "latest" || /^v1\.(0|[1-9]\d*)$/.test(value);
}

export function policyName(policy: Policy): string {
  return `${policy.level}:${policy.version}`;
}

/** How strict a level is: privileged 0, baseline 1, restricted 2. */
export function strictness(level: Level): number {
  return LEVELS.indexOf(level);
}

/**
 * A namespace's policies from its labels `<prefix><mode>` and `<prefix><mode>-version`, else
 * `defaults` (kube's PolicyToEvaluate). A label that does not parse is reported as an
 * `Invalid value` error on `metadata.labels[<label>]` and is read as kube reads it: an enforce
 * level as `restricted` (fail closed), an audit or warn level as `privileged` (fail open), a
 * version as `latest`.
 */
export function policiesFromLabels(labels: Readonly<Record<string, string>>, prefix: string, defaults: Policies): NamespacePolicies {
  const errors: FieldError[] = [];
  const invalid = (label: string, value: string, message: string): void => {
    errors.push({ type: "FieldValueInvalid", field: `metadata.labels[${label}]`, message: `Invalid value: "${value}": ${message}` });
  };
  const read = (mode: Mode): Policy => {
    let { level, version } = defaults[mode];
    const levelLabel = `${prefix}${mode}`;
    const levelValue = labels[levelLabel];
    if (levelValue !== undefined) {
      if (isLevel(levelValue)) level = levelValue;
      else {
        invalid(levelLabel, levelValue, `must be one of ${LEVELS.join(", ")}`);
        level = mode === "enforce" ? "restricted" : "privileged";
      }
    }
    const versionLabel = `${prefix}${mode}-version`;
    const versionValue = labels[versionLabel];
    if (versionValue !== undefined) {
      if (isVersion(versionValue)) version = versionValue;
      else {
        invalid(versionLabel, versionValue, `must be "latest" or "v1.x"`);
        version = "latest";
      }
    }
    return { level, version };
  };
  return { policies: { enforce: read("enforce"), audit: read("audit"), warn: read("warn") }, errors };
}

function equivalent(a: Policy, b: Policy): boolean {
  return a.level === b.level && (a.level === "privileged" || a.version === b.version);
}

/**
 * kube's warning for an exempt namespace that asks for a policy: `namespace "x" is exempt from
 * Pod Security, and the policy (enforce=restricted:latest, warn=…) will be ignored`, naming the
 * non-privileged modes its labels set. Undefined when the policy is fully privileged or the same
 * as the defaults.
 */
export function exemptNamespaceWarning(
  name: string,
  policies: Policies,
  labels: Readonly<Record<string, string>>,
  options: { readonly prefix: string; readonly defaults: Policies },
): string | undefined {
  if (MODES.every((mode) => policies[mode].level === "privileged")) return undefined;
  if (MODES.every((mode) => equivalent(policies[mode], options.defaults[mode]))) return undefined;
  const parts = (["enforce", "audit", "warn"] as const)
    .filter((mode) => {
      const labelled = labels[`${options.prefix}${mode}`] !== undefined || labels[`${options.prefix}${mode}-version`] !== undefined;
      return labelled && policies[mode].level !== "privileged";
    })
    .map((mode) => `${mode}=${policyName(policies[mode])}`);
  return `namespace "${name}" is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
}
