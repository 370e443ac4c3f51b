import type { NameRule } from "../../api/validation.js";
import type { ResourceVerb } from "../../request/request-info.js";
import {
  ALL_VERBS,
  type ConnectHandler,
  type CreateOnlyHandler,
  type ResourceDefinition,
  type ScaleSubresource,
  type Scope,
  type Strategy,
  type WriteAllocations,
} from "../definition.js";

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
  /**
   * Field selector names: a path, `[name, path]`, or `[name, path, absent]` where `absent` is the
   * value an object without the field has (kube's selectable fields of an int or bool read `0` or
   * `false`, never empty).
   */
  readonly selectableFields?: readonly (string | readonly [string, string] | readonly [string, string, string])[];
  readonly hasGeneration?: boolean;
  /** Keep the status a create sends (Node); other kinds with a status sub-resource start with an empty one. */
  readonly keepStatusOnCreate?: boolean;
  readonly nameRule?: NameRule;
  readonly verbs?: readonly ResourceVerb[];
  readonly strategy?: Partial<Strategy>;
  /** PUT of a missing object creates it (kube's AllowCreateOnUpdate: Endpoints, Events, Leases, RBAC, …). */
  readonly createOnUpdate?: boolean;
  readonly storedAs?: ResourceDefinition["storedAs"];
  readonly deprecation?: ResourceDefinition["deprecation"];
  /** Off unless `--runtime-config` turns the group version on. */
  readonly defaultOff?: boolean;
  /** A create-only resource computed by this handler, never stored; verbs default to `create`. */
  readonly virtual?: CreateOnlyHandler;
  /** Create-only sub-resources computed by handlers. */
  readonly subresourceHandlers?: Readonly<Record<string, CreateOnlyHandler>>;
  /** The `scale` sub-resource: where the kind keeps its replicas and selector (registry/scale.ts). */
  readonly scale?: ScaleSubresource;
  /** Sub-resources answered for a node agent (`pods/log`, `services/proxy`, …). */
  readonly connect?: Readonly<Record<string, ConnectHandler>>;
  /** Values claimed from shared ranges around each write (a Service's cluster IPs and node ports). */
  readonly allocations?: WriteAllocations;
  /** A kind kube computes rather than stores (ComponentStatus): no `storageVersionHash` in discovery. */
  readonly computedInKube?: boolean;
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
    verbs: declaration.verbs === undefined ? (declaration.virtual === undefined ? ALL_VERBS : new Set<ResourceVerb>(["create"])) : new Set(declaration.verbs),
    shortNames: declaration.shortNames ?? [],
    categories: declaration.categories ?? [],
    subresources: new Set(declaration.subresources ?? []),
    selectableFields: new Map((declaration.selectableFields ?? []).map((entry) => (typeof entry === "string" ? [entry, entry] : [entry[0], entry[1]]))),
    selectableFieldsAbsent: new Map(
      (declaration.selectableFields ?? []).flatMap((entry) => (typeof entry !== "string" && entry[2] !== undefined ? [[entry[0], entry[2]] as const] : [])),
    ),
    hasGeneration: declaration.hasGeneration ?? false,
    keepStatusOnCreate: declaration.keepStatusOnCreate ?? false,
    nameRule: declaration.nameRule ?? "dns1123-subdomain",
    strategy: { ...DEFAULT_STRATEGY, ...declaration.strategy, ...(declaration.createOnUpdate === true ? { allowCreateOnUpdate: true } : {}) },
    storedAs: declaration.storedAs,
    deprecation: declaration.deprecation,
    enabledByDefault: declaration.defaultOff !== true,
    ...(declaration.virtual === undefined ? {} : { virtual: declaration.virtual }),
    ...(declaration.subresourceHandlers === undefined ? {} : { subresourceHandlers: new Map(Object.entries(declaration.subresourceHandlers)) }),
    ...(declaration.scale === undefined ? {} : { scale: declaration.scale }),
    ...(declaration.connect === undefined ? {} : { connect: new Map(Object.entries(declaration.connect)) }),
    ...(declaration.allocations === undefined ? {} : { allocations: declaration.allocations }),
    ...(declaration.computedInKube === true ? { computedInKube: true } : {}),
  };
}

/** The definitions with a create-only sub-resource handler added to one resource (e.g. `serviceaccounts/token`). */
export function withSubresourceHandler(
  definitions: readonly ResourceDefinition[],
  target: { readonly group: string; readonly version: string; readonly plural: string },
  name: string,
  handler: CreateOnlyHandler,
): ResourceDefinition[] {
  return definitions.map((definition) => {
    if (definition.group !== target.group || definition.version !== target.version || definition.plural !== target.plural) return definition;
    return { ...definition, subresourceHandlers: new Map([...(definition.subresourceHandlers ?? []), [name, handler]]) };
  });
}
