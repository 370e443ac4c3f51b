/**
 * kube's metric stability framework, as far as the spec asks: each metric has a stability level
 * (ALPHA, BETA, STABLE) shown as a prefix of its help text; a deprecated metric's help also says
 * since when, and three releases after its deprecation it is hidden (not registered). Setting
 * `--show-hidden-metrics-for-version` to the previous minor version shows again the metrics that
 * were still visible in that version (kube accepts only the previous minor version).
 */
export type StabilityLevel = "ALPHA" | "BETA" | "STABLE";

export interface MetricStability {
  readonly stabilityLevel: StabilityLevel;
  /** `<major>.<minor>[.<patch>]` the metric was deprecated in. */
  readonly deprecatedVersion?: string;
}

/** Releases a deprecated metric stays registered before it is hidden (the spec's Metrics section). */
export const RELEASES_BEFORE_HIDDEN = 3;

interface MinorVersion {
  readonly major: number;
  readonly minor: number;
}

/** `v1.30.0+orch`, `1.30` or `1.30.2` as major and minor; undefined when not a version. */
export function parseMinorVersion(text: string): MinorVersion | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(text.trim());
  if (match === null) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

function format(version: MinorVersion): string {
  return `${version.major}.${version.minor}`;
}

export class ShowHiddenMetricsError extends Error {
  override readonly name = "ShowHiddenMetricsError";
}

/** Which metrics a server registers: those not hidden at its version, plus those re-enabled by the flag. */
export class MetricVisibility {
  private readonly current: MinorVersion;
  private readonly shownFor: MinorVersion | undefined;

  /**
   * `serverVersion` is the emulated release (`/version`'s gitVersion). `showHiddenFor` must be
   * the previous minor version, or ShowHiddenMetricsError says which value is allowed.
   */
  constructor(serverVersion: string, showHiddenFor?: string) {
    const current = parseMinorVersion(serverVersion);
    if (current === undefined) throw new Error(`not a server version: ${serverVersion}`);
    this.current = current;
    if (showHiddenFor === undefined || showHiddenFor === "") return;
    const previous = { major: current.major, minor: current.minor - 1 };
    const asked = parseMinorVersion(showHiddenFor);
    if (asked === undefined || asked.major !== previous.major || asked.minor !== previous.minor || !/^\d+\.\d+$/.test(showHiddenFor.trim()))
      throw new ShowHiddenMetricsError(
        `--show-hidden-metrics-for-version must be omitted or have the value '${format(previous)}'. Only the previous minor version is allowed.`,
      );
    this.shownFor = asked;
  }

  /** True when the metric is registered (exported at /metrics). */
  visible(stability: MetricStability): boolean {
    if (!hiddenAt(this.current, stability)) return true;
    return this.shownFor !== undefined && !hiddenAt(this.shownFor, stability);
  }

  /** The help text as kube shows it: `[STABLE] (Deprecated since 1.27.0) …`. */
  help(text: string, stability: MetricStability): string {
    const deprecated = stability.deprecatedVersion === undefined ? "" : `(Deprecated since ${stability.deprecatedVersion}) `;
    return `[${stability.stabilityLevel}] ${deprecated}${text}`;
  }
}

function hiddenAt(version: MinorVersion, stability: MetricStability): boolean {
  if (stability.deprecatedVersion === undefined) return false;
  const deprecated = parseMinorVersion(stability.deprecatedVersion);
  if (deprecated === undefined || deprecated.major !== version.major) return false;
  return version.minor >= deprecated.minor + RELEASES_BEFORE_HIDDEN;
}
