import type { NameRule } from "../../api/validation.js";
import type { ResourceVerb } from "../../request/request-info.js";
import { ALL_VERBS, type ResourceDefinition, type Scope, type Strategy } from "../definition.js";

export const DEFAULT_STRATEGY: Strategy = { allowCreateOnUpdate: false, allowUnconditionalUpdate: true };

export interface ResourceDeclaration {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: Scope;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly string[];
  readonly selectableFields?: readonly (string | readonly [string, string])[];
  readonly hasGeneration?: boolean;
  readonly nameRule?: NameRule;
  readonly verbs?: readonly ResourceVerb[];
  readonly strategy?: Partial<Strategy>;
}

/** Fills a declaration's defaults: every verb, subdomain names, the default strategy. */
export function defineResource(declaration: ResourceDeclaration): ResourceDefinition {
  return {
    group: declaration.group,
    version: declaration.version,
    kind: declaration.kind,
    plural: declaration.plural,
    singular: declaration.kind.toLowerCase(),
    scope: declaration.scope,
    verbs: declaration.verbs === undefined ? ALL_VERBS : new Set(declaration.verbs),
    shortNames: declaration.shortNames ?? [],
    categories: declaration.categories ?? [],
    subresources: new Set(declaration.subresources ?? []),
    selectableFields: new Map((declaration.selectableFields ?? []).map((entry) => (typeof entry === "string" ? [entry, entry] : [entry[0], entry[1]]))),
    hasGeneration: declaration.hasGeneration ?? false,
    nameRule: declaration.nameRule ?? "dns1123-subdomain",
    strategy: { ...DEFAULT_STRATEGY, ...declaration.strategy },
  };
}
