import type { AdmissionChain } from "../admission/chain.js";
import { loadAdmissionConfiguration } from "../admission/configuration.js";
import type { PluginContext, PluginDescriptor } from "../admission/context.js";
import type { AdmissionPlugin } from "../admission/interface.js";
import { selectPlugins } from "../admission/plugin-set.js";
import { builtinPlugins } from "../admission/plugins/index.js";
import type { Profile } from "../api/profile.js";
import type { AdmissionConfig } from "./config.js";

/** The named plugins the flags select, in order, each with its configuration checked. Throws AdmissionConfigError. */
export function selectedPlugins(
  admission: AdmissionConfig,
  profile: Profile,
  catalogue: readonly PluginDescriptor[] = builtinPlugins(),
): { descriptor: PluginDescriptor; configuration: unknown }[] {
  const selected = selectPlugins(catalogue, admission);
  const raw =
    admission.configFile === undefined
      ? new Map<string, unknown>()
      : loadAdmissionConfiguration(admission.configFile, profile, new Set(catalogue.map((plugin) => plugin.name)));
  return selected.map((descriptor) => {
    const given = raw.get(descriptor.name);
    return { descriptor, configuration: descriptor.parseConfiguration === undefined ? given : descriptor.parseConfiguration(given, profile) };
  });
}

/** Checks the admission flags and configuration file at start-up (the CLI exits 2 on an AdmissionConfigError). */
export function checkAdmissionConfig(admission: AdmissionConfig, profile: Profile): void {
  selectedPlugins(admission, profile);
}

/**
 * Registers the selected plugins into the chain in order. `named` holds the plugins the
 * composition root makes itself (NamespaceLifecycle, the two webhook plugins); a slot with neither
 * a builder nor a named plugin is skipped.
 */
export function registerPlugins(options: {
  readonly chain: AdmissionChain;
  readonly admission: AdmissionConfig;
  readonly catalogue: readonly PluginDescriptor[];
  readonly context: Omit<PluginContext, "configuration">;
  readonly named: Readonly<Record<string, AdmissionPlugin>>;
}): void {
  for (const { descriptor, configuration } of selectedPlugins(options.admission, options.context.profile, options.catalogue)) {
    const plugin = options.named[descriptor.name] ?? descriptor.create?.({ ...options.context, configuration });
    if (plugin !== undefined) options.chain.register(plugin);
  }
}
