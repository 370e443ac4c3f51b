/** A feature's maturity: alpha (off by default), beta (on), GA (on and locked), deprecated (on its way out). */
export type FeatureStage = "Alpha" | "Beta" | "GA" | "Deprecated";

export interface FeatureSpec {
  readonly stage: FeatureStage;
  readonly default: boolean;
  /** A locked gate cannot be set to anything but its default (GA features). */
  readonly locked: boolean;
  /** The release the feature reached its stage. */
  readonly since: string;
}

const alpha = (since: string): FeatureSpec => ({ stage: "Alpha", default: false, locked: false, since });
const beta = (since: string): FeatureSpec => ({ stage: "Beta", default: true, locked: false, since });
const ga = (since: string): FeatureSpec => ({ stage: "GA", default: true, locked: true, since });

/**
 * The gates this server knows: the spec's list at the spec's stages, plus `WatchList`. Gates
 * with effects here: APIResponseCompression (gzip), APIServerTracing (spans), WatchList
 * (`sendInitialEvents`), APIListChunking (`limit`/`continue`), RemainingItemCount; the rest
 * are accepted for compatibility and describe behaviour that is always present (GA) or absent.
 */
export const KNOWN_FEATURES: ReadonlyMap<string, FeatureSpec> = new Map([
  ["APIListChunking", beta("1.9")],
  ["RemainingItemCount", beta("1.16")],
  ["WatchBookmark", ga("1.17")],
  ["EfficientWatchResumption", beta("1.21")],
  ["APIPriorityAndFairness", beta("1.20")],
  ["APIResponseCompression", beta("1.16")],
  ["APIServerIdentity", alpha("1.20")],
  ["APIServerTracing", alpha("1.22")],
  ["DryRun", ga("1.19")],
  ["ServerSideApply", ga("1.22")],
  ["WarningHeaders", ga("1.22")],
  ["RemoveSelfLink", beta("1.20")],
  ["CSRDuration", beta("1.22")],
  ["NamespaceDefaultLabelName", ga("1.22")],
  ["RootCAConfigMap", ga("1.21")],
  ["BoundServiceAccountTokenVolume", ga("1.22")],
  ["TokenRequest", ga("1.20")],
  ["PodSecurity", alpha("1.22")],
  // Not in the spec's list: watch lists (`sendInitialEvents`), served here by default.
  ["WatchList", beta("1.27")],
]);

export class FeatureGateError extends Error {
  override readonly name = "FeatureGateError";
}

/** The effective gates: every known feature's value, and the warnings setting them produced. */
export interface FeatureGates {
  enabled(name: string): boolean;
  /** Warnings to print at start-up (deprecated and GA gates set explicitly). */
  readonly warnings: readonly string[];
  /** `Name=bool` of every explicitly set gate, for logs and tests. */
  readonly overrides: ReadonlyMap<string, boolean>;
}

/** The defaults, nothing overridden. */
export const DEFAULT_FEATURE_GATES: FeatureGates = featureGates(new Map());

/**
 * Builds the gates from overrides (`--feature-gates` parsed). Unknown names and a locked gate set
 * away from its default throw FeatureGateError with kube's wording; a GA or deprecated gate set
 * explicitly adds a warning, as kube logs one.
 */
export function featureGates(overrides: ReadonlyMap<string, boolean>, known: ReadonlyMap<string, FeatureSpec> = KNOWN_FEATURES): FeatureGates {
  const warnings: string[] = [];
  for (const [name, value] of overrides) {
    const spec = known.get(name);
    if (spec === undefined) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (spec.locked && value !== spec.default) throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
    if (spec.stage === "Deprecated") warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
    if (spec.stage === "GA") warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
  }
  return {
    enabled: (name) => overrides.get(name) ?? known.get(name)?.default ?? false,
    warnings,
    overrides,
  };
}

/** Parses `Name=bool,Name=bool` (later settings of a name win); malformed items throw FeatureGateError. */
export function parseFeatureGates(value: string, into: Map<string, boolean> = new Map()): Map<string, boolean> {
  for (const item of value.split(",")) {
    const trimmed = item.trim();
    if (trimmed === "") continue;
    const [name, setting, ...rest] = trimmed.split("=");
    if (name === undefined || name.trim() === "" || setting === undefined || rest.length > 0) throw new FeatureGateError(`missing bool value for ${trimmed}`);
    const normalized = setting.trim().toLowerCase();
    if (normalized !== "true" && normalized !== "false") throw new FeatureGateError(`invalid value of ${name.trim()}=${setting}, err: must be true or false`);
    into.set(name.trim(), normalized === "true");
  }
  return into;
}
