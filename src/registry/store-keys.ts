import { resourcePrefix } from "../storage/index.js";
import type { ResourceDefinition } from "./definition.js";

/**
 * Storage keys of a resource in kube's etcd layout (storage/key-layout.ts):
 * `/<resource prefix>/<namespace>/<name>`, or without the namespace for cluster-scoped kinds.
 * Versions served from another version's storage share its keys.
 */
export class ResourceKeys {
  private readonly base: string;
  readonly namespaced: boolean;

  constructor(definition: ResourceDefinition) {
    const stored = definition.storedAs ?? definition;
    this.base = `/${resourcePrefix({ group: stored.group, plural: stored.plural, custom: isCustomResource(definition) })}/`;
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

/** Custom resources are the definitions built from a CRD: only they carry the version's OpenAPI schema. */
export function isCustomResource(definition: ResourceDefinition): boolean {
  return definition.openApiSchema !== undefined;
}
