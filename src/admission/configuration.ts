import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseFirstDocument } from "../util/yaml.js";
import { isPlainObject } from "../api/object.js";
import { admissionNames, foreignConfigHint, type Profile } from "../api/profile.js";
import { AdmissionConfigError } from "./deny.js";

/** A plugin's raw configuration from an AdmissionConfiguration (inline, or read from its `path`). */
export type PluginConfigurations = ReadonlyMap<string, unknown>;

/** Reads a YAML or JSON file; errors name the file. */
export function readConfigFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AdmissionConfigError(`${what}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return parseFirstDocument(text);
  } catch (error) {
    throw new AdmissionConfigError(`${what}: ${path} is not YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * `--admission-control-config-file`: an AdmissionConfiguration (`apiserver.config.<apiDomain>/v1`,
 * also v1alpha1) whose `plugins[]` give each plugin a `path` (relative to the file) or an inline
 * `configuration`. Returns each named plugin's configuration; every error names the field.
 */
export function loadAdmissionConfiguration(path: string, profile: Profile, knownPlugins: ReadonlySet<string>): PluginConfigurations {
  const document = readConfigFile(path, "--admission-control-config-file");
  if (!isPlainObject(document)) throw new AdmissionConfigError(`--admission-control-config-file ${path}: must be an AdmissionConfiguration object`);
  const group = admissionNames(profile).configGroup;
  const accepted = [`${group}/v1`, `${group}/v1alpha1`];
  if (document["kind"] !== "AdmissionConfiguration") {
    throw new AdmissionConfigError(`--admission-control-config-file ${path}: kind: must be AdmissionConfiguration, got ${JSON.stringify(document["kind"])}`);
  }
  if (typeof document["apiVersion"] !== "string" || !accepted.includes(document["apiVersion"])) {
    throw new AdmissionConfigError(
      `--admission-control-config-file ${path}: apiVersion: must be ${accepted.join(" or ")}, got ${JSON.stringify(document["apiVersion"])}${foreignConfigHint(group, document["apiVersion"])}`,
    );
  }
  const plugins = document["plugins"] ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError(`--admission-control-config-file ${path}: plugins: must be a list`);
  const out = new Map<string, unknown>();
  plugins.forEach((entry: unknown, index) => {
    const field = `plugins[${index}]`;
    if (!isPlainObject(entry)) throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}: must be an object`);
    const name = entry["name"];
    if (typeof name !== "string" || name === "") throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}.name: required`);
    if (!knownPlugins.has(name)) throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}.name: unknown admission plugin "${name}"`);
    if (out.has(name)) throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}.name: plugin "${name}" configured twice`);
    const hasPath = entry["path"] !== undefined;
    const hasInline = entry["configuration"] !== undefined;
    if (hasPath && hasInline)
      throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}: plugin "${name}" sets both path and configuration`);
    if (hasPath) {
      if (typeof entry["path"] !== "string") throw new AdmissionConfigError(`--admission-control-config-file ${path}: ${field}.path: must be a string`);
      out.set(name, readConfigFile(resolve(dirname(path), entry["path"]), `plugin "${name}" (${field}.path)`));
    } else {
      out.set(name, entry["configuration"]);
    }
  });
  return out;
}
