import { parseDuration } from "../util/duration.js";
import type { Config } from "./config.js";

/** One command-line flag: its name, help, and how its value changes the Config. */
export interface FlagSpec {
  readonly name: string;
  readonly alias?: string;
  readonly help: string;
  readonly defaultText: string;
  readonly boolean?: boolean;
  readonly apply: (config: MutableConfig, value: string) => void;
}

export type MutableConfig = { -readonly [K in keyof Config]: Config[K] };

export class FlagError extends Error {
  override readonly name = "FlagError";
}

export function parsePort(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a port number 0-65535`);
  return Number(value);
}

export function parseDurationFlag(value: string, flag: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 0) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a duration such as 500ms, 3s or 5m`);
  return ms;
}

export function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be a positive integer`);
  return Number(value);
}

/** One of a flag's `choices`, as given; any other value is an error naming them all. */
export function parseChoice<T extends string>(value: string, choices: readonly T[], flag: string): T {
  const chosen = choices.find((choice) => choice === value);
  if (chosen === undefined) throw new FlagError(`invalid value "${value}" for flag --${flag}: must be one of ${choices.join(", ")}`);
  return chosen;
}

/** A comma-separated list flag value (kube's string slices); empty items dropped. */
export function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

export function parseBool(value: string, flag: string): boolean {
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new FlagError(`invalid value "${value}" for flag --${flag}: must be true or false`);
}
