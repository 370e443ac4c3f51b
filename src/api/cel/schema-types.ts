/**
 * CEL types from a kind's schema, as kube declares them to type-check admission policies:
 * integer → int, number → double, boolean → bool, string → string (format byte → bytes,
 * date and date-time → timestamp, duration → duration), array → list of its items' type,
 * object with additionalProperties → map(string, T), object with properties → an object type
 * with those fields, int-or-string → dyn. A resource root (and an embedded resource) always has
 * apiVersion, kind and metadata.name/generateName, as kube adds them.
 * Where kube hides values from CEL or rejects every access (preserve-unknown-fields, objects
 * without properties, arrays without items) the type is dyn here: nothing is reported on them
 * (docs/architecture.md, admission policies).
 */
import type { Environment } from "@marcbachmann/cel-js";
import type { SchemaNode, SchemaTree } from "../schema/node.js";
import { escapePropertyName } from "./escaping.js";

const STRING_FORMATS: Readonly<Record<string, string>> = {
  byte: "bytes",
  date: "google.protobuf.Timestamp",
  "date-time": "google.protobuf.Timestamp",
  duration: "google.protobuf.Duration",
};

const SCALARS: Readonly<Record<string, string>> = { boolean: "bool", number: "double", integer: "int" };

/** kube's fields of an object's metadata when its schema does not declare them. */
const RESOURCE_META: SchemaNode = { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" } } };

/**
 * Registers object types for schema trees in one environment (before it is cloned): one type per
 * catalogue definition (so recursive definitions end) or per inline object node. Names are the
 * definition ids (`apps.v1.DeploymentSpec`) or the root's name with the field path.
 */
export class SchemaTypes {
  private readonly env: Environment;
  private readonly byRef = new Map<string, string>();
  private readonly byNode = new Map<SchemaNode, string>();
  private readonly names = new Set<string>();

  constructor(env: Environment) {
    this.env = env;
  }

  /** The CEL type name of the tree's root (a resource root), registering the object types under it. */
  declare(tree: SchemaTree, name: string): string {
    return this.typeOf(tree.root, tree, name, true);
  }

  /** The CEL type name of a node that is not a resource root (a CRD rule's `self` below the root). */
  declareNode(node: SchemaNode, name: string): string {
    return this.typeOf(node, { root: node, resolve: (inner) => inner }, name, node.embeddedResource === true);
  }

  private typeOf(site: SchemaNode, tree: SchemaTree, name: string, resourceRoot: boolean): string {
    const known = site.ref === undefined ? this.byNode.get(site) : this.byRef.get(site.ref);
    if (known !== undefined) return known;
    const node = tree.resolve(site);
    if (node.intOrString === true || node.preserveUnknownFields === true) return "dyn";
    switch (node.type) {
      case "array":
        return node.items === undefined ? "dyn" : `list<${this.typeOf(node.items, tree, `${name}.items`, node.items.embeddedResource === true)}>`;
      case "object":
        if (node.additionalProperties !== undefined)
          return `map<string, ${this.typeOf(node.additionalProperties, tree, `${name}.value`, node.additionalProperties.embeddedResource === true)}>`;
        if (node.properties === undefined) return "dyn";
        return this.objectType(site, node, tree, name, resourceRoot || node.embeddedResource === true);
      case "string":
        return STRING_FORMATS[node.format ?? ""] ?? "string";
      case undefined:
        return "dyn";
      default:
        return SCALARS[node.type] ?? "dyn";
    }
  }

  private objectType(site: SchemaNode, node: SchemaNode, tree: SchemaTree, name: string, resourceRoot: boolean): string {
    const typeName = this.uniqueName(site.ref ?? name);
    // Named before its fields are typed: a definition that contains itself refers to this name.
    if (site.ref === undefined) this.byNode.set(site, typeName);
    else this.byRef.set(site.ref, typeName);
    // No prototype: a schema may declare a property called `__proto__`.
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [field, child] of Object.entries(node.properties ?? {})) {
      fields[field] = this.typeOf(child, tree, `${typeName}.${field}`, child.embeddedResource === true);
      // kube declares the escaped name (`__namespace__`, `x__dash__y`); the written name stays too,
      // as kube 1.30 still resolves a reserved word written plainly (`p.namespace`).
      const escaped = escapePropertyName(field);
      if (escaped !== undefined && escaped !== field) fields[escaped] = fields[field];
    }
    if (resourceRoot) {
      fields["apiVersion"] ??= "string";
      fields["kind"] ??= "string";
      fields["metadata"] ??= this.typeOf(RESOURCE_META, { root: RESOURCE_META, resolve: (inner) => inner }, `${typeName}.metadata`, false);
    }
    // The checker reads only the field types; values are never converted to this class.
    this.env.registerType(typeName, { ctor: class {}, fields });
    // Objects may be compared with null (cel-go lets null stand for a message); scalars may not.
    this.env.registerOperator(`${typeName} == null`, () => false);
    return typeName;
  }

  private uniqueName(wanted: string): string {
    // Each dotted segment an identifier (a property `x-y` or `0a` would not name a type).
    const base = `schema.${wanted
      .split(".")
      .map((segment) => segment.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9]|$)/, "_"))
      .join(".")}`;
    let candidate = base;
    for (let count = 2; this.names.has(candidate); count++) candidate = `${base}${count}`;
    this.names.add(candidate);
    return candidate;
  }
}
