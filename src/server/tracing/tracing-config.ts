import { readFileSync } from "node:fs";
import { parseFirstDocument } from "../../util/yaml.js";
import { foreignConfigHint, type Profile } from "../../api/profile.js";

/** kube's TracingConfiguration (`--tracing-config-file`): where spans go and how many requests are sampled. */
export interface TracingConfiguration {
  /** `host:port` of the OTLP collector (kube's default `localhost:4317`); a URL is taken as it is. */
  readonly endpoint: string;
  /** Requests sampled per million (default 0: only requests whose incoming traceparent is sampled). */
  readonly samplingRatePerMillion: number;
}

export class TracingConfigError extends Error {
  override readonly name = "TracingConfigError";
}

/** The API versions kube 1.30 reads a TracingConfiguration in. */
const VERSIONS = ["v1", "v1beta1", "v1alpha1"];

/** Reads and checks a TracingConfiguration file (YAML or JSON) of group `apiserver.config.<apiDomain>`. */
export function loadTracingConfig(path: string, profile: Profile): TracingConfiguration {
  let document: unknown;
  try {
    document = parseFirstDocument(readFileSync(path, "utf8"));
  } catch (error) {
    throw new TracingConfigError(`reading ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseTracingConfig(document, profile);
}

export function parseTracingConfig(document: unknown, profile: Profile): TracingConfiguration {
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new TracingConfigError("not a TracingConfiguration object");
  const fields = document as Record<string, unknown>;
  const group = `apiserver.config.${profile.apiDomain}`;
  const apiVersion = fields["apiVersion"];
  if (typeof apiVersion !== "string" || !VERSIONS.some((version) => apiVersion === `${group}/${version}`))
    throw new TracingConfigError(
      `apiVersion must be one of ${VERSIONS.map((version) => `${group}/${version}`).join(", ")}${foreignConfigHint(group, apiVersion)}`,
    );
  if (fields["kind"] !== "TracingConfiguration") throw new TracingConfigError("kind must be TracingConfiguration");
  const endpoint = fields["endpoint"] ?? "localhost:4317";
  if (typeof endpoint !== "string" || endpoint === "") throw new TracingConfigError("endpoint must be a non-empty string");
  const rate = fields["samplingRatePerMillion"] ?? 0;
  if (typeof rate !== "number" || !Number.isInteger(rate) || rate < 0 || rate > 1_000_000)
    throw new TracingConfigError("samplingRatePerMillion: must be an integer from 0 to 1000000");
  return { endpoint, samplingRatePerMillion: rate };
}

/** The OTLP/HTTP traces URL of an endpoint: `host:port` → `http://host:port/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  if (/^https?:\/\//.test(endpoint)) return new URL(endpoint).pathname === "/" ? new URL("/v1/traces", endpoint).toString() : endpoint;
  return `http://${endpoint}/v1/traces`;
}
