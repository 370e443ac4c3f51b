import type { ResourceDefinition } from "./definition.js";

/**
 * Storage keys of a resource: `/<group|core>/<plural>/<namespace>/<name>`, or without the
 * namespace for cluster-scoped kinds. Versions served from another version's storage share its keys.
 */
export class ResourceKeys {
  private readonly base: string;
  readonly namespaced: boolean;

  constructor(definition: ResourceDefinition) {
    const stored = definition.storedAs ?? definition;
    this.base = `/${stored.group === "" ? "core" : stored.group}/${stored.plural}/`;
    this.namespaced = definition.scope === "Namespaced";
  }

  /** Key of one object. */
  key(namespace: string, name: string): string {
    return this.namespaced ? `${this.prefix(namespace)}${name}` : `${this.base}${name}`;
  }

  /** Prefix of a collection; "" namespace = across all namespaces. */
  prefix(namespace: string): string {
    return this.namespaced && namespace !== "" ? `${this.base}${namespace}/` : this.base;
  }
}
