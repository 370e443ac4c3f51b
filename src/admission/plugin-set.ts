import { AdmissionConfigError } from "./deny.js";
import type { PluginDescriptor } from "./context.js";

/** `--enable-admission-plugins` and `--disable-admission-plugins` as given. */
export interface PluginSelection {
  readonly enable: readonly string[];
  readonly disable: readonly string[];
}

/**
 * The plugins that run, in the catalogue's (kube's) order whatever order the flags list them:
 * the defaults plus `enable`, minus `disable` (which also turns defaults off). Unknown names and a
 * name both enabled and disabled throw AdmissionConfigError naming the flag and the plugin.
 */
export function selectPlugins(catalogue: readonly PluginDescriptor[], selection: PluginSelection): PluginDescriptor[] {
  const known = new Set(catalogue.map((plugin) => plugin.name));
  for (const [flag, names] of [
    ["--enable-admission-plugins", selection.enable],
    ["--disable-admission-plugins", selection.disable],
  ] as const) {
    for (const name of names) {
      if (!known.has(name)) throw new AdmissionConfigError(`${flag}: unknown admission plugin "${name}"; known: ${[...known].sort().join(", ")}`);
    }
  }
  const both = selection.enable.filter((name) => selection.disable.includes(name));
  if (both.length > 0) throw new AdmissionConfigError(`--enable-admission-plugins and --disable-admission-plugins both name ${both.join(", ")}`);
  return catalogue.filter((plugin) => (plugin.defaultOn || selection.enable.includes(plugin.name)) && !selection.disable.includes(plugin.name));
}
