import type { Admission, AdmissionAttributes, AdmissionOperation } from "../registry/admission.js";

/**
 * An admission plugin. `mutate` may change `attributes.object`; `validate` must not. Either
 * throws an ApiError to reject. `handles` gates both by operation.
 */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  mutate?(attributes: AdmissionAttributes): Promise<void>;
  validate?(attributes: AdmissionAttributes): Promise<void>;
}

/** Runs every plugin's mutate in order, then (separately) every validate in order. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  return {
    async mutate(attributes) {
      for (const plugin of plugins) if (plugin.mutate !== undefined && plugin.handles(attributes.operation)) await plugin.mutate(attributes);
    },
    async validate(attributes) {
      for (const plugin of plugins) if (plugin.validate !== undefined && plugin.handles(attributes.operation)) await plugin.validate(attributes);
    },
  };
}
