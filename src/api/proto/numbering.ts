import type { SchemaNode } from "../schema/node.js";
import { LEAF_MESSAGES, type ParsedMessages, type ProtoMessageField } from "./messages.js";

/**
 * A JSON object's protobuf form: the message it is encoded as and, for each JSON property, its field.
 * Shapes are shared and may be cyclic (JSONSchemaProps holds JSONSchemaProps); never mutate them.
 */
export interface ProtoShape {
  readonly message: string;
  readonly fields: ReadonlyMap<string, ProtoField>;
}

/** Where one JSON property travels on the wire. */
export interface ProtoField {
  /** The field's number in the innermost message that declares it. */
  readonly number: number;
  /**
   * For a property of a Go-embedded struct (`Volume.hostPath` lives in `Volume.volumeSource`): the
   * numbers of the enclosing fields, outermost first, each a field of the previous one's message
   * (the first of the shape's own message). Absent for direct fields.
   */
  readonly embeddedIn?: readonly number[];
  /** The message of the value, or of each element or map value, when its JSON form is an object of its fields. */
  readonly shape?: ProtoShape;
  /**
   * The message where the walk stops: a leaf id (`meta.v1.Time`, `resource.Quantity`, …) or a
   * message whose JSON form is not an object of its fields (a free-form JSON value, a bare list).
   * An encoder handles these values as a whole.
   */
  readonly leaf?: string;
  /** `list` for a repeated field, `map` for a map (entries `key=1 value=2`); absent for one value. */
  readonly cardinality?: "list" | "map";
  /** A zero scalar read from the wire is kept (a Go pointer or a field without `omitempty`; see `presence.ts`). */
  readonly keepsZero?: true;
  /** For a scalar value (or element, map value): its JSON type, which decides the wire type. */
  readonly scalar?: ProtoScalar;
}

/** A scalar's JSON type: `int` is any integer (varint), `bytes` base64 text in JSON, raw on the wire. */
export type ProtoScalar = "string" | "int" | "bool" | "double" | "bytes";

export interface NumberingOptions {
  readonly messages: ParsedMessages;
  /** Named definitions, to follow `ref`s (an unknown reference is a free-form value). */
  readonly definitions: ReadonlyMap<string, SchemaNode>;
  /**
   * The profile's OpenAPI extension prefixes (`x-<product>-`). A JSON property spelled with one of
   * them (`<prefix>list-type`) is the message field named `x<Word><CamelRest>` (`xFooListType`),
   * whichever product word the message uses; with several prefixes, every spelling gets that number.
   */
  readonly extensionPrefixes: readonly string[];
  /** Proto field names, by message id, whose zero values are kept on decoding (`presence.ts`). */
  readonly zeroKept?: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface Numbering {
  readonly shape: ProtoShape;
  /** JSON paths (`spec.containers[].foo`) that have no field, each with the reason. */
  readonly unresolved: readonly string[];
}

/**
 * TypeMeta: the root's `apiVersion` and `kind` travel in the envelope, not in the message, and a
 * whole object nested in another (StatefulSet's claim templates) has none on the wire.
 */
const TYPE_META = new Set(["apiVersion", "kind"]);

/**
 * Gives every property of a kind's schema its wire number, matching JSON property names to the
 * message's field names (never property order, so reordering a schema changes nothing). Follows
 * `ref`s, array items and map values (with the field's message), and Go-embedded structs (a property
 * missing from a message is looked for in its message fields that are not themselves properties).
 */
export function numberFields(root: SchemaNode, message: string, options: NumberingOptions): Numbering {
  const walker = new Walker(options);
  const shape = walker.shapeOf(root, message, "", true);
  return { shape, unresolved: walker.unresolved };
}

interface FoundField {
  readonly field: ProtoMessageField;
  /** The message that declares the field, and the field's proto name there. */
  readonly message: string;
  readonly name: string;
  readonly embeddedIn: readonly number[];
}

class Walker {
  readonly unresolved: string[] = [];
  /** Shapes by structural node, then message: each pair is walked once, which also ends cycles. */
  private readonly shapes = new Map<SchemaNode, Map<string, ProtoShape>>();

  constructor(private readonly options: NumberingOptions) {}

  shapeOf(node: SchemaNode, message: string, path: string, isRoot = false): ProtoShape {
    const structural = this.structural(node);
    const known = this.shapes.get(structural)?.get(message);
    if (known !== undefined) return known;
    const fields = new Map<string, ProtoField>();
    const shape: ProtoShape = { message, fields };
    const byMessage = this.shapes.get(structural) ?? new Map<string, ProtoShape>();
    byMessage.set(message, shape);
    this.shapes.set(structural, byMessage);

    const declared = this.options.messages.get(message);
    if (declared === undefined) {
      this.unresolved.push(`${path === "" ? "(root)" : path}: no message ${message}`);
      return shape;
    }
    const properties = structural.properties ?? {};
    const names = new Set(Object.keys(properties));
    // A nested whole object is one with its own metadata whose message has no apiVersion/kind.
    const wholeObject = isRoot || names.has("metadata");
    // Sorted so that what is reported does not depend on the schema's property order either.
    for (const name of [...names].sort()) {
      if (wholeObject && TYPE_META.has(name) && !declared.has(name)) continue;
      const child = properties[name];
      if (child === undefined) continue;
      const childPath = path === "" ? name : `${path}.${name}`;
      const found = this.find(message, declared, this.protoName(name, declared), names, new Set([message]));
      if (found === undefined) {
        this.unresolved.push(`${childPath}: not in ${message}`);
        continue;
      }
      const value = this.valueOf(child, found.field.message, childPath);
      const cardinality = this.cardinalityOf(child);
      const scalar = value.shape === undefined && value.leaf === undefined ? this.scalarOf(child) : undefined;
      fields.set(name, {
        number: found.field.number,
        ...(found.embeddedIn.length === 0 ? {} : { embeddedIn: found.embeddedIn }),
        ...value,
        ...(cardinality === undefined ? {} : { cardinality }),
        ...(scalar === undefined ? {} : { scalar }),
        ...(scalar !== undefined && this.options.zeroKept?.get(found.message)?.has(found.name) === true ? { keepsZero: true as const } : {}),
      });
    }
    return shape;
  }

  /** What a value (or each element / map value) of `message` gives: a shape, a leaf, or nothing for scalars. */
  private valueOf(node: SchemaNode, message: string | undefined, path: string): Pick<ProtoField, "shape" | "leaf"> {
    if (message !== undefined && LEAF_MESSAGES.has(message)) return { leaf: message };
    const structural = this.structural(node);
    if (structural.items !== undefined) return this.valueOf(structural.items, message, `${path}[]`);
    if (structural.properties === undefined && structural.additionalProperties !== undefined)
      return this.valueOf(structural.additionalProperties, message, `${path}{}`);
    const hasProperties = structural.properties !== undefined && Object.keys(structural.properties).length > 0;
    if (message === undefined) {
      if (hasProperties) this.unresolved.push(`${path}: an object in the schema, a scalar field in the message`);
      return {};
    }
    if (hasProperties) return { shape: this.shapeOf(structural, message, path) };
    return { leaf: message };
  }

  /** Whether a property is a list or a map (of anything); undefined for one value. */
  private cardinalityOf(node: SchemaNode): ProtoField["cardinality"] {
    const structural = this.structural(node);
    if (structural.intOrString === true) return undefined;
    if (structural.items !== undefined) return "list";
    if (structural.properties === undefined && structural.additionalProperties !== undefined) return "map";
    return undefined;
  }

  /** The JSON type of a scalar property (of its elements or map values). */
  private scalarOf(node: SchemaNode): ProtoScalar {
    const structural = this.structural(node);
    const inner = structural.items ?? (structural.properties === undefined ? structural.additionalProperties : undefined);
    if (inner !== undefined) return this.scalarOf(inner);
    if (structural.type === "integer") return "int";
    if (structural.type === "number") return "double";
    if (structural.type === "boolean") return "bool";
    if (structural.format === "byte") return "bytes";
    return "string";
  }

  /**
   * A field by proto name: in the message itself, else depth-first in its message-typed fields whose
   * names are not JSON properties of the object (Go's embedded structs), in declaration order.
   */
  private find(
    messageId: string,
    fields: ReadonlyMap<string, ProtoMessageField>,
    name: string | undefined,
    properties: ReadonlySet<string>,
    visited: Set<string>,
  ): FoundField | undefined {
    if (name === undefined) return undefined;
    const direct = fields.get(name);
    if (direct !== undefined) return { field: direct, message: messageId, name, embeddedIn: [] };
    for (const [fieldName, field] of fields) {
      if (field.message === undefined || LEAF_MESSAGES.has(field.message) || properties.has(fieldName) || visited.has(field.message)) continue;
      const inner = this.options.messages.get(field.message);
      if (inner === undefined) continue;
      visited.add(field.message);
      const found = this.find(field.message, inner, name, properties, visited);
      if (found !== undefined) return { ...found, embeddedIn: [field.number, ...found.embeddedIn] };
    }
    return undefined;
  }

  /**
   * The proto name of a JSON property. JSON-Schema's `$ref`/`$schema` drop the `$`; an extension
   * `<prefix>list-map-keys` is the message's `x<Word>ListMapKeys` field, whatever the word.
   */
  private protoName(json: string, fields: ReadonlyMap<string, ProtoMessageField>): string | undefined {
    if (json.startsWith("$")) return json.slice(1);
    const prefix = this.options.extensionPrefixes.find((candidate) => json.startsWith(candidate));
    if (prefix === undefined) return json;
    const suffix = json
      .slice(prefix.length)
      .split("-")
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join("");
    for (const name of fields.keys()) {
      if (/^x[A-Z][a-z0-9]*/.test(name) && name.replace(/^x[A-Z][a-z0-9]*/, "") === suffix) return name;
    }
    return undefined;
  }

  /** The node that carries the structure: a reference followed to its definition. */
  private structural(node: SchemaNode): SchemaNode {
    let current = node;
    const seen = new Set<string>();
    while (current.ref !== undefined && !seen.has(current.ref)) {
      seen.add(current.ref);
      const target = this.options.definitions.get(current.ref);
      if (target === undefined) return { type: "object", preserveUnknownFields: true };
      current = target;
    }
    return current;
  }
}
