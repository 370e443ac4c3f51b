import { apiGroup, type Profile } from "../profile.js";
import { builtinProtoMessages } from "../proto/fields/index.js";
import type { ParsedMessages, ProtoMessageField } from "../proto/messages.js";
import { zeroKeptFields } from "../proto/presence.js";
import { numberFields, type ProtoShape } from "../proto/numbering.js";
import { BUILTIN_KINDS, EXCHANGED_KINDS, builtinDefinitions, type KindDeclaration } from "./kinds/index.js";
import { listMeta, obj, ref, req, str, type Definitions, type SchemaNode } from "./node.js";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * The schemas of the built-in kinds, for one profile: named definitions (each kind's and the
 * structs under it, plus a `<Kind>List` for every kind) and which definition is the schema of which
 * group/version/kind. The one source of truth that validation, pruning, defaulting, server-side
 * apply's types and the OpenAPI documents are derived from. Immutable once built.
 */
export class SchemaCatalogue {
  readonly definitions: Definitions;
  private readonly idsByKind = new Map<string, string>();
  private readonly kindsById = new Map<string, GroupVersionKind[]>();
  private readonly resolved = new WeakMap<SchemaNode, SchemaNode>();
  /** Each `<Kind>List` definition id and its item's definition id. */
  private readonly listItems = new Map<string, string>();
  private readonly options: CatalogueOptions;
  private protoMessages: ParsedMessages | undefined;
  private readonly protoShapes = new Map<string, ProtoShape | undefined>();

  constructor(definitions: Definitions, kinds: readonly GroupVersionKindWithId[], options: CatalogueOptions = {}) {
    const all = new Map(definitions);
    for (const declaration of kinds) {
      this.register(declaration, declaration.id);
      const listId = `${declaration.id}List`;
      if (!all.has(listId)) all.set(listId, listDefinition(declaration));
      this.listItems.set(listId, declaration.id);
      this.register({ ...declaration, kind: `${declaration.kind}List` }, listId);
    }
    this.definitions = all;
    this.options = options;
  }

  private register(gvk: GroupVersionKind, id: string): void {
    this.idsByKind.set(kindKey(gvk.group, gvk.version, gvk.kind), id);
    const known = this.kindsById.get(id) ?? [];
    if (!known.some((entry) => entry.group === gvk.group && entry.version === gvk.version && entry.kind === gvk.kind))
      known.push({ group: gvk.group, version: gvk.version, kind: gvk.kind });
    this.kindsById.set(id, known);
  }

  /** The profile's key domain, which spells the annotation keys rules read; undefined for catalogues of no profile. */
  get keyDomain(): string | undefined {
    return this.options.keyDomain;
  }

  /** The id of a kind's definition, when the catalogue has one. */
  idOf(group: string, version: string, kind: string): string | undefined {
    return this.idsByKind.get(kindKey(group, version, kind));
  }

  /** The group/version/kinds a definition is the schema of (empty for structs inside kinds). */
  kindsOf(id: string): readonly GroupVersionKind[] {
    return this.kindsById.get(id) ?? [];
  }

  node(id: string): SchemaNode | undefined {
    return this.definitions.get(id);
  }

  /**
   * The node with its reference followed: the definition's fields, overridden by what the site
   * adds (a description, a default, a patch strategy). Unknown references resolve to a free-form
   * node. Nodes without a reference are returned as they are.
   */
  resolve(node: SchemaNode): SchemaNode {
    if (node.ref === undefined) return node;
    const known = this.resolved.get(node);
    if (known !== undefined) return known;
    const { ref: id, ...site } = node;
    const target = this.definitions.get(id);
    const result: SchemaNode = target === undefined ? { type: "object", preserveUnknownFields: true } : { ...this.resolve(target), ...site };
    this.resolved.set(node, result);
    return result;
  }

  /**
   * The protobuf form of a served kind (its `<Kind>List` too): every JSON property's wire number,
   * kube's own, found by name in the message whose id is the kind's definition id. Undefined when
   * the catalogue has no such kind or no message for it; a property without a field is left out.
   * Computed on first use and kept.
   */
  protoShape(group: string, version: string, kind: string): ProtoShape | undefined {
    const id = this.idOf(group, version, kind);
    if (id === undefined) return undefined;
    return this.messageShape(id);
  }

  /**
   * The protobuf form of any definition that has a message of the same id (`meta.v1.Status`,
   * `meta.v1.DeleteOptions`), kinds or not. Computed on first use and kept.
   */
  messageShape(id: string): ProtoShape | undefined {
    if (this.protoShapes.has(id)) return this.protoShapes.get(id);
    const node = this.definitions.get(id);
    const messages = this.messages();
    const shape =
      node === undefined || !messages.has(id)
        ? undefined
        : numberFields(node, id, {
            messages,
            definitions: this.definitions,
            extensionPrefixes: this.options.extensionPrefixes ?? [],
            zeroKept: zeroKeptFields(),
          }).shape;
    this.protoShapes.set(id, shape);
    return shape;
  }

  /** The messages with one for each `<Kind>List` (kube declares them all as `metadata=1 items=2`). */
  private messages(): ParsedMessages {
    if (this.protoMessages !== undefined) return this.protoMessages;
    const base = this.options.protoMessages ?? builtinProtoMessages();
    const all = new Map(base);
    for (const [listId, itemId] of this.listItems) {
      if (all.has(listId) || !base.has(itemId)) continue;
      all.set(
        listId,
        new Map<string, ProtoMessageField>([
          ["metadata", { number: 1, message: "meta.v1.ListMeta" }],
          ["items", { number: 2, message: itemId }],
        ]),
      );
    }
    this.protoMessages = all;
    return all;
  }
}

export interface CatalogueOptions {
  /** The profile's OpenAPI extension prefixes, as JSONSchemaProps spells its properties. */
  readonly extensionPrefixes?: readonly string[];
  /** The profile's key domain, handed to the definitions' rules (`ValidationContext.keyDomain`). */
  readonly keyDomain?: string;
  /** The protobuf messages kinds are numbered from; the built-in data files by default. */
  readonly protoMessages?: ParsedMessages;
}

export interface GroupVersionKindWithId extends GroupVersionKind {
  readonly id: string;
}

function kindKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

function listDefinition(declaration: KindDeclaration): SchemaNode {
  return obj(
    {
      apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
      items: req({ type: "array", items: ref(declaration.id), description: `List of ${declaration.kind} objects.` }),
      kind: str("Kind is a string value representing the REST resource this object represents."),
      metadata: listMeta(),
    },
    { description: `${declaration.kind}List is a list of ${declaration.kind} objects.` },
  );
}

/** The kinds' group names as the profile spells them. */
function resolveGroups(profile: Profile, kinds: readonly KindDeclaration[]): GroupVersionKindWithId[] {
  return kinds.map((declaration) => ({
    group: declaration.domain === true ? apiGroup(profile, declaration.group) : declaration.group,
    version: declaration.version,
    kind: declaration.kind,
    id: declaration.id,
  }));
}

const catalogues = new WeakMap<Profile, SchemaCatalogue>();

/** The built-in kinds' catalogue for a profile (built once per profile, on first use). */
export function builtinCatalogue(profile: Profile): SchemaCatalogue {
  let catalogue = catalogues.get(profile);
  if (catalogue === undefined) {
    catalogue = new SchemaCatalogue(builtinDefinitions(profile.openApiExtensionPrefixes), resolveGroups(profile, [...BUILTIN_KINDS, ...EXCHANGED_KINDS]), {
      extensionPrefixes: profile.openApiExtensionPrefixes,
      keyDomain: profile.keyDomain,
    });
    catalogues.set(profile, catalogue);
  }
  return catalogue;
}
