import type { Admission, AdmissionPlugin } from "./interface.js";

/**
 * The admission slot the registry is built with: plugins are registered into it once the stages
 * they need (authorization, the registry itself) exist, before the server serves. Runs every
 * plugin's mutate in order, then (separately) every validate in order.
 */
export class AdmissionChain implements Admission {
  private plugins: readonly AdmissionPlugin[] = [];

  /** Appends plugins, in the order they run. */
  register(...plugins: readonly AdmissionPlugin[]): void {
    this.plugins = [...this.plugins, ...plugins];
  }

  /** The registered plugins' names, in order. */
  names(): readonly string[] {
    return this.plugins.map((plugin) => plugin.name);
  }

  async mutate(attributes: Parameters<Admission["mutate"]>[0]): Promise<void> {
    for (const plugin of this.plugins) if (plugin.mutate !== undefined && plugin.handles(attributes.operation)) await plugin.mutate(attributes);
  }

  async validate(attributes: Parameters<Admission["validate"]>[0]): Promise<void> {
    for (const plugin of this.plugins) if (plugin.validate !== undefined && plugin.handles(attributes.operation)) await plugin.validate(attributes);
  }
}

/** A chain of fixed plugins. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const chain = new AdmissionChain();
  chain.register(...plugins);
  return chain;
}

export const NO_ADMISSION: Admission = {
  mutate: async () => {},
  validate: async () => {},
};
