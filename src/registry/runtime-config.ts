import { apiVersionOf, type ResourceDefinition } from "./definition.js";

/** `--runtime-config` entries: `api/all`, `<group>/<version>` (core: `v1` or `api/v1`) → on/off. */
export type RuntimeConfig = ReadonlyMap<string, boolean>;

export class RuntimeConfigError extends Error {
  override readonly name = "RuntimeConfigError";
}

/** Parses `key[=value],...`; a missing value means true, as kube reads it. */
export function parseRuntimeConfig(text: string): RuntimeConfig {
  const entries = new Map<string, boolean>();
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const [key = "", value = "true"] = part.split("=", 2);
    if (!/^[a-z0-9.-]+\/[a-z0-9]+$|^v1$/.test(key)) throw new RuntimeConfigError(`invalid runtime-config key "${key}": expected <group>/<version> or api/all`);
    if (value !== "true" && value !== "false") throw new RuntimeConfigError(`invalid runtime-config value "${value}" for ${key}: must be true or false`);
    entries.set(key === "v1" ? "api/v1" : key, value === "true");
  }
  return entries;
}

/**
 * The definitions served: a group version's own entry wins, then `api/all`, then the version's
 * default (alpha and a few beta versions are off by default).
 */
export function enabledDefinitions(definitions: readonly ResourceDefinition[], config: RuntimeConfig): ResourceDefinition[] {
  return definitions.filter((definition) => {
    const own = config.get(definition.group === "" ? `api/${definition.version}` : apiVersionOf(definition));
    if (own !== undefined) return own;
    const all = config.get("api/all");
    if (all !== undefined) return all;
    return definition.enabledByDefault;
  });
}
