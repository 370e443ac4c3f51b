import type { FieldError } from "../errors.js";
import { isPlainObject } from "../object.js";
import { quantityError } from "../quantity.js";
import type { SchemaCatalogue } from "./catalogue.js";
import { childPath, indexPath, invalidValue, keyPath, notSupported, required, shown } from "./field-path.js";
import type { SchemaNode } from "./node.js";

/**
 * What a kind tells its definitions' rules about the object being walked (`SchemaRules.contexts`):
 * a StatefulSet's volume claim templates are volumes its pod template may mount.
 */
export interface ValidationContext {
  /** Names a pod template's containers may mount besides its own volumes. */
  readonly claimVolumes?: ReadonlySet<string>;
  /** The profile's key domain, which spells the annotations a pod template's rules read (the catalogue's). */
  readonly keyDomain?: string;
}

const NO_CONTEXT: ValidationContext = {};

/** A definition's own rules, run on every value of that definition (wherever it occurs). */
export type DefinitionValidator = (value: Record<string, unknown>, path: string, context: ValidationContext) => FieldError[];

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** RFC 3339 date-time, as kube's Time and MicroTime parse it. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * What a site's value is checked as, decided once per site (see `shapeOf`): `preserved-object` and
 * `preserved` are kept as sent (`preserveUnknownFields` without properties; only an `object` type
 * is checked), `free` has no type (any value), `unknown` is a type this validator does not know
 * (nothing below the value is checked).
 */
type Shape =
  | "preserved-object"
  | "preserved"
  | "int-or-string"
  | "quantity"
  | "object"
  | "array"
  | "boolean"
  | "string"
  | "integer"
  | "number"
  | "free"
  | "unknown";

const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * One schema site as the walk reads it: the node with its reference followed, flattened into one
 * object shape (every site alike, so the walk's reads stay monomorphic), plus the definition's own
 * validator. Built on a site's first visit and kept: schema nodes are immutable and shared.
 */
interface Site {
  readonly shape: Shape;
  readonly format: string | undefined;
  readonly enumValues: readonly string[] | undefined;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, SchemaNode>> | undefined;
  readonly additionalProperties: SchemaNode | undefined;
  readonly items: SchemaNode | undefined;
  readonly validator: DefinitionValidator | undefined;
  /**
   * The sites below this one, linked on first use so the walk goes from site to site without
   * resolving each value's node again: each declared property's by name (bounded by the schema),
   * the additional properties' and the items'.
   */
  readonly propertySites: Map<string, Site>;
  additionalSite: Site | undefined;
  itemsSite: Site | undefined;
}

function typeError(value: unknown, path: string, expected: string, errors: FieldError[]): false {
  errors.push({
    type: "FieldValueTypeInvalid",
    field: path,
    message: `Invalid value: ${shown(value)}: ${path} in body must be of type ${expected}: "${typeName(value)}"`,
  });
  return false;
}

function shapeOf(node: SchemaNode): Shape {
  if (node.preserveUnknownFields === true && node.properties === undefined) return node.type === "object" ? "preserved-object" : "preserved";
  if (node.intOrString === true) return "int-or-string";
  if (node.format === "quantity") return "quantity";
  switch (node.type) {
    case "object":
      return "object";
    case "array":
      return "array";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "integer":
      return "integer";
    case "number":
      return "number";
    case undefined:
      return "free";
    default:
      return "unknown";
  }
}

/**
 * Checks a value against its schema node, the way kube's OpenAPI validation reports: type
 * mismatches (FieldValueTypeInvalid), missing required properties (a required string or list
 * that is empty counts as missing, as kube's Go validation treats zero values), enums
 * (NotSupported), formats and bounds. `null` is an absent value. Unknown properties are not
 * errors here (see unknown-fields.ts). Each definition's own validator runs on its values once
 * their shape is right; when it reports a field, the structural error for that field is dropped.
 * Every write of a kind with a schema walks its object here, so each schema site is prepared once
 * (`Site`) and the walk allocates nothing but field paths and errors.
 */
export class SchemaValidator {
  private readonly catalogue: SchemaCatalogue;
  private readonly validators: ReadonlyMap<string, DefinitionValidator>;
  private readonly sites = new Map<SchemaNode, Site>();
  /** Errors of `leafFits`' trial check, dropped (never reported: `visit` checks again with the path). */
  private readonly scratch: FieldError[] = [];
  /** The current walk's context (`validate`). */
  private context: ValidationContext = NO_CONTEXT;

  constructor(catalogue: SchemaCatalogue, validators: ReadonlyMap<string, DefinitionValidator>) {
    this.catalogue = catalogue;
    this.validators = validators;
  }

  /** Every error of `value` at `path`; `skip` names top-level properties left to others (metadata); `context` goes to the definitions' rules. */
  validate(node: SchemaNode, value: unknown, path: string, skip?: ReadonlySet<string>, context: ValidationContext = NO_CONTEXT): FieldError[] {
    const structural: FieldError[] = [];
    const own: FieldError[] = [];
    // For this walk only (walks never nest: rules do not call back into the validator).
    this.context = context;
    try {
      this.visit(node, value, path, structural, own, skip);
    } finally {
      this.context = NO_CONTEXT;
    }
    if (structural.length === 0) return own;
    const owned = new Set(own.map((error) => error.field));
    return [...structural.filter((error) => !owned.has(error.field)), ...own];
  }

  private siteOf(node: SchemaNode): Site {
    const known = this.sites.get(node);
    if (known !== undefined) return known;
    const resolved = this.catalogue.resolve(node);
    const site: Site = {
      shape: shapeOf(resolved),
      format: resolved.format,
      enumValues: resolved.enum,
      minimum: resolved.minimum,
      maximum: resolved.maximum,
      required: resolved.required ?? NO_NAMES,
      properties: resolved.properties,
      additionalProperties: resolved.additionalProperties,
      items: resolved.items,
      validator: node.ref === undefined ? undefined : this.validators.get(node.ref),
      propertySites: new Map(),
      additionalSite: undefined,
      itemsSite: undefined,
    };
    this.sites.set(node, site);
    return site;
  }

  /**
   * The site of the property `name` of `site` as its schema declares it; null when it does not
   * (map keys, unknown names: not kept, so a map's keys never grow the links).
   */
  private propertySite(site: Site, name: string): Site | null {
    const properties = site.properties;
    if (properties === undefined) return null;
    const linked = site.propertySites.get(name);
    if (linked !== undefined) return linked;
    const declared = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (declared === undefined) return null;
    const child = this.siteOf(declared);
    site.propertySites.set(name, child);
    return child;
  }

  private additionalSiteOf(site: Site): Site | undefined {
    if (site.additionalSite === undefined && site.additionalProperties !== undefined) site.additionalSite = this.siteOf(site.additionalProperties);
    return site.additionalSite;
  }

  private itemsSiteOf(site: Site): Site | undefined {
    if (site.itemsSite === undefined && site.items !== undefined) site.itemsSite = this.siteOf(site.items);
    return site.itemsSite;
  }

  private visit(node: SchemaNode, value: unknown, path: string, errors: FieldError[], own: FieldError[], skip?: ReadonlySet<string>): void {
    if (value === null || value === undefined) return;
    this.visitSite(this.siteOf(node), value, path, errors, own, skip);
  }

  private visitSite(site: Site, value: unknown, path: string, errors: FieldError[], own: FieldError[], skip?: ReadonlySet<string>): void {
    if (!this.checkShape(site, value, path, errors)) return;
    if (isPlainObject(value)) {
      const names = site.required;
      for (let index = 0; index < names.length; index++) {
        const name = names[index] as string;
        if (skip?.has(name) === true) continue;
        if (isMissing(value[name])) errors.push(required(childPath(path, name)));
      }
      if (site.properties === undefined && site.additionalProperties === undefined) {
        if (site.validator !== undefined) own.push(...site.validator(value, path, this.context));
        return;
      }
      // for…in over a JSON object (own, enumerable keys only): no entries array per object.
      for (const name in value) {
        if (skip?.has(name) === true) continue;
        const item = value[name];
        if (item === null || item === undefined) continue;
        const declared = this.propertySite(site, name);
        const property = declared ?? this.additionalSiteOf(site);
        if (property === undefined) continue;
        if (typeof item !== "object" && this.leafFits(property, item)) continue;
        this.visitSite(property, item, declared === null ? keyPath(path, name) : childPath(path, name), errors, own);
      }
      if (site.validator !== undefined) own.push(...site.validator(value, path, this.context));
    } else if (Array.isArray(value)) {
      const items = this.itemsSiteOf(site);
      if (items === undefined) return;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (item === null || item === undefined) continue;
        if (typeof item !== "object" && this.leafFits(items, item)) continue;
        this.visitSite(items, item, indexPath(path, index), errors, own);
      }
    }
  }

  /**
   * Whether a scalar (string, number, boolean) passes its site's checks: most of a walk's values
   * are scalars that do, and a scalar's path is needed only for its errors (definition validators
   * run on objects), so its path is built only when this answers false and `visit` reports them.
   */
  private leafFits(site: Site, value: unknown): boolean {
    const scratch = this.scratch;
    const fits = this.checkShape(site, value, "", scratch);
    if (scratch.length === 0) return fits;
    scratch.length = 0;
    return false;
  }

  /** Type, format, enum and bounds; false when the value's type is wrong (nothing below is checked). */
  private checkShape(site: Site, value: unknown, path: string, errors: FieldError[]): boolean {
    switch (site.shape) {
      case "free":
      case "preserved":
        return true;
      case "object":
      case "preserved-object":
        return isPlainObject(value) || typeError(value, path, "object", errors);
      case "array":
        return Array.isArray(value) || typeError(value, path, "array", errors);
      case "string":
        if (typeof value !== "string") return typeError(value, path, "string", errors);
        if (site.enumValues !== undefined || site.format !== undefined) this.checkString(site, value, path, errors);
        return true;
      case "boolean":
        return typeof value === "boolean" || typeError(value, path, "boolean", errors);
      case "integer":
        if (typeof value !== "number" || !Number.isInteger(value)) return typeError(value, path, "integer", errors);
        if (site.format === "int32" && (value < INT32_MIN || value > INT32_MAX)) errors.push(invalidValue(path, value, "must fit in a 32-bit signed integer"));
        this.checkBounds(site, value, path, errors);
        return true;
      case "number":
        if (typeof value !== "number" || !Number.isFinite(value)) return typeError(value, path, "number", errors);
        this.checkBounds(site, value, path, errors);
        return true;
      case "int-or-string":
        if (typeof value === "string" || (typeof value === "number" && Number.isInteger(value))) return true;
        return typeError(value, path, "integer or string", errors);
      case "quantity":
        if (typeof value === "number" && Number.isFinite(value)) return true;
        if (typeof value !== "string") return typeError(value, path, "string or number", errors);
        {
          // apimachinery's parser decides (the regular expression in its message is looser than it).
          const error = quantityError(value);
          if (error !== undefined) errors.push(invalidValue(path, value, error));
        }
        return true;
      case "unknown":
        return false;
    }
  }

  private checkString(site: Site, value: string, path: string, errors: FieldError[]): void {
    if (site.enumValues !== undefined && !site.enumValues.includes(value)) errors.push(notSupported(path, value, site.enumValues));
    if (site.format === "date-time" && !DATE_TIME.test(value))
      errors.push(invalidValue(path, value, "must be an RFC 3339 date-time (e.g. 2006-01-02T15:04:05Z)"));
    if (site.format === "byte" && !BASE64.test(value)) errors.push({ type: "FieldValueInvalid", field: path, message: "Invalid value: illegal base64 data" });
  }

  private checkBounds(site: Site, value: number, path: string, errors: FieldError[]): void {
    if (site.minimum !== undefined && value < site.minimum) errors.push(invalidValue(path, value, `must be greater than or equal to ${site.minimum}`));
    if (site.maximum !== undefined && value > site.maximum) errors.push(invalidValue(path, value, `must be less than or equal to ${site.maximum}`));
  }
}

/** Absent as kube's validation sees it: missing, null, an empty string or an empty list. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
}
