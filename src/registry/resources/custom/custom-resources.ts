import { internalError, methodNotAllowed } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import { customObjectSchema } from "../../../api/crd/custom-object-schema.js";
import type { JsonSchema } from "../../../api/crd/json-schema.js";
import type { FieldType } from "../../../api/schema/field-type.js";
import type { ObjectSchema } from "../../../api/schema/object-schema.js";
import { fieldTypeFromOpenApi } from "../../../api/schema/openapi.js";
import type { ValidationRules } from "../../../api/crd/validation-rules.js";
import type { Cell, ColumnSpec } from "../../../codec/tables/index.js";
import { age } from "../../../codec/tables/format.js";
import { ALL_VERBS, type ResourceDefinition, type ScaleSubresource, type StoredAs } from "../../definition.js";
import { CompiledSchemas } from "./compiled-schemas.js";
import { webhookConversion, type ConversionWebhookOptions } from "./conversion-webhook.js";
import { dottedPath, jsonPathValues } from "./json-path.js";
import { stringifyJson } from "../../../util/deep-json.js";

/** The names a CustomResourceDefinition's resources are served under (its accepted names). */
export interface CustomResourceNames {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export interface CustomResourceOptions {
  readonly extensionPrefixes: readonly string[];
  readonly rules?: ValidationRules;
  /** How `strategy: Webhook` conversions are called; without it such definitions convert as `None`. */
  readonly conversionWebhooks?: ConversionWebhookOptions;
  /**
   * Reads the definition again when a version's schema is needed and is not compiled (the
   * server passes the watch cache's copy, so served versions hold no schema of their own).
   * Without it the definition given is kept and read.
   */
  readonly reload?: () => ApiObject | undefined;
  /** Where compiled versions are kept (the server's one cache); default: a cache for these definitions alone. */
  readonly compiled?: CompiledSchemas<VersionArtifacts>;
}

/** What one served version compiles its `openAPIV3Schema` into, on first use. */
export interface VersionArtifacts {
  readonly openApiSchema: Readonly<Record<string, unknown>>;
  readonly schema: ObjectSchema;
  readonly fieldType: FieldType;
}

/** The key prefix of a definition's compiled versions (every version of every generation). */
export function compiledPrefix(crdName: string): string {
  return `${crdName}/`;
}

function versionSchema(crd: ApiObject, version: string): Record<string, unknown> | undefined {
  const versions = Array.isArray(record(crd["spec"])["versions"]) ? (record(crd["spec"])["versions"] as unknown[]) : [];
  const found = versions.map(record).find((item) => item["name"] === version);
  return found === undefined ? undefined : record(record(found["schema"])["openAPIV3Schema"]);
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function string(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The accepted (or, before acceptance, the requested) names of a CustomResourceDefinition. */
export function namesOf(value: unknown): CustomResourceNames {
  const names = record(value);
  const kind = string(names["kind"]);
  const strings = (key: string): string[] => (Array.isArray(names[key]) ? names[key].filter((item): item is string => typeof item === "string") : []);
  return {
    plural: string(names["plural"]),
    singular: string(names["singular"]) || kind.toLowerCase(),
    kind,
    listKind: string(names["listKind"]) || `${kind}List`,
    shortNames: strings("shortNames"),
    categories: strings("categories"),
  };
}

/** The storage version's name, when exactly one version is marked. */
export function storageVersionOf(crd: ApiObject): string | undefined {
  const versions = Array.isArray(record(crd["spec"])["versions"]) ? (record(crd["spec"])["versions"] as unknown[]) : [];
  const storage = versions.map(record).filter((version) => version["storage"] === true);
  return storage.length === 1 ? string(storage[0]?.["name"]) : undefined;
}

/**
 * The resources a CustomResourceDefinition serves: one definition per served version, under
 * `names`, each with its version's schema stage (pruning, defaults, validation, CEL rules),
 * sub-resources, printer columns and selectable fields. Versions other than the storage version
 * are stored as it: with conversion `None` only `apiVersion` changes; with `Webhook` every
 * version converts through the definition's webhook (conversion-webhook.ts). Custom objects are
 * written only with a resourceVersion (kube's custom resource strategy); structural defaults
 * apply on read as well (the stored version's, as kube decodes before converting); once the definition is Terminating, creates are refused (405).
 */
export function customResourceDefinitions(crd: ApiObject, names: CustomResourceNames, options: CustomResourceOptions): ResourceDefinition[] {
  const spec = record(crd["spec"]);
  const group = string(spec["group"]);
  const scope = spec["scope"] === "Cluster" ? "Cluster" : "Namespaced";
  const storageVersion = storageVersionOf(crd);
  if (storageVersion === undefined) return [];
  const versions = (Array.isArray(spec["versions"]) ? spec["versions"] : []).map(record);
  // kube refuses creates once the cleanup finalizer has begun deleting every object.
  const terminating = (Array.isArray(record(crd["status"])["conditions"]) ? (record(crd["status"])["conditions"] as unknown[]) : [])
    .map(record)
    .some((condition) => condition["type"] === "Terminating" && condition["status"] === "True");
  const refuseCreate = (): never => {
    throw methodNotAllowed("create not allowed while custom resource definition is terminating");
  };
  const conversion = options.conversionWebhooks === undefined ? undefined : webhookConversion(crd, names.kind, options.conversionWebhooks);
  const storedAs = (version: string): StoredAs | undefined => {
    if (version === storageVersion) return undefined;
    const rewrite =
      (to: string) =>
      (object: ApiObject): ApiObject => ({ ...object, apiVersion: `${group}/${to}` });
    // kube prunes what it reads from storage with the storage version's schema: a field that only
    // the written version declares does not survive a `None` conversion. Pruning on the way in
    // leaves the same objects to every later read (in place: the written object is what is stored).
    const toStorage = (object: ApiObject): ApiObject => {
      const stored = rewrite(storageVersion)(object);
      artifactsOf(storageVersion, `${group}/${storageVersion}/${names.kind}`)().schema.unknownFields(stored, { prune: true });
      return stored;
    };
    return { group, version: storageVersion, plural: names.plural, toStorage, fromStorage: rewrite(version) };
  };
  const definitionName = crd.metadata.name ?? "";
  const pruneReadsBefore = Number(crd.metadata.resourceVersion ?? 0) || 0;
  const identity = `${compiledPrefix(definitionName)}${crd.metadata.uid ?? ""}/${String(crd.metadata.generation ?? "")}/`;
  // With a way to read the definition again, nothing below keeps `crd` (its schemas are large).
  const pinned = options.reload === undefined ? crd : undefined;
  const reload = options.reload;
  const compiled = options.compiled ?? new CompiledSchemas<VersionArtifacts>(Number.POSITIVE_INFINITY);
  const { extensionPrefixes, rules } = options;
  const artifactsOf = (version: string, kindId: string): (() => VersionArtifacts) => {
    const key = `${identity}${version}`;
    return () =>
      compiled.get(key, () => {
        const source = pinned ?? reload?.();
        const schema = source === undefined ? undefined : versionSchema(source, version);
        // The definition went or dropped the version since it was served: its replacement is on its way.
        if (schema === undefined) throw internalError(`the schema of ${group}/${version} ${names.kind} is not available; retry`);
        // Each form is made when first asked for (OpenAPI reads the schema only, no schema stage or merge structure).
        let stage: ObjectSchema | undefined;
        let structure: FieldType | undefined;
        return {
          openApiSchema: schema,
          get schema() {
            stage ??= customObjectSchema(kindId, schema as JsonSchema, { extensionPrefixes, rules });
            return stage;
          },
          get fieldType() {
            structure ??= fieldTypeFromOpenApi(schema, { extensionPrefixes });
            return structure;
          },
        };
      });
  };
  // The schema stage of each version by apiVersion, for objects stored at another version than the one read.
  const declared = new Set(versions.map((version) => string(version["name"])));
  const stages = new Map<string, ObjectSchema>();
  const stageOf = (apiVersion: string): ObjectSchema | undefined => {
    const prefix = `${group}/`;
    const version = apiVersion.startsWith(prefix) ? apiVersion.slice(prefix.length) : undefined;
    if (version === undefined || !declared.has(version)) return undefined;
    let stage = stages.get(version);
    if (stage === undefined) {
      const kindId = `${group}/${version}/${names.kind}`;
      const artifacts = artifactsOf(version, kindId);
      stage = lazyObjectSchema(kindId, () => artifacts().schema);
      stages.set(version, stage);
    }
    return stage;
  };
  return versions
    .filter((version) => version["served"] === true)
    .map((version): ResourceDefinition => {
      const name = string(version["name"]);
      const subresources = record(version["subresources"]);
      const scale = scaleOf(subresources["scale"]);
      const selectable = (Array.isArray(version["selectableFields"]) ? version["selectableFields"] : [])
        .map((field) => dottedPath(string(record(field)["jsonPath"])))
        .filter((field): field is string => field !== undefined);
      const columns = columnsOf(version["additionalPrinterColumns"]);
      const deprecated = version["deprecated"] === true;
      const warning = string(version["deprecationWarning"]) || `${group}/${name} ${names.kind} is deprecated`;
      const kindId = `${group}/${name}/${names.kind}`;
      const artifacts = artifactsOf(name, kindId);
      return {
        group,
        version: name,
        kind: names.kind,
        plural: names.plural,
        singular: names.singular,
        scope,
        verbs: ALL_VERBS,
        shortNames: names.shortNames,
        categories: names.categories,
        subresources: new Set(isPlainObject(subresources["status"]) ? ["status"] : []),
        selectableFields: new Map(selectable.map((field) => [field, field])),
        keepStatusOnCreate: false,
        dropsStatusOnCreate: true,
        hasGeneration: true,
        // kube's custom resource validator: NameIsDNSSubdomain (CRD objects' names are DNS subdomains).
        nameRule: "dns1123-subdomain",
        strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, ...(terminating ? { prepareForCreate: refuseCreate } : {}) },
        readAsServed: true,
        pruneReadsBefore,
        versionSchema: stageOf,
        strategicMergePatch: false,
        schema: lazyObjectSchema(kindId, () => artifacts().schema),
        storedAs: storedAs(name),
        ...(conversion === undefined ? {} : { conversion }),
        ...(deprecated ? { deprecation: { since: "", removedIn: "", warning } } : {}),
        enabledByDefault: true,
        ...(scale === undefined ? {} : { scale }),
        openApiSchema: () => artifacts().openApiSchema,
        fieldType: () => artifacts().fieldType,
        ...(columns === undefined ? {} : { columns }),
      };
    });
}

/** A schema stage that compiles its version's schema when first asked (through `compiled`). */
function lazyObjectSchema(id: string, compiled: () => ObjectSchema): ObjectSchema {
  return {
    id,
    unknownFields: (object, prune) => compiled().unknownFields(object, prune),
    decodeMismatch: () => undefined,
    applyDefaults: (object) => compiled().applyDefaults(object),
    validate: (object, old) => compiled().validate(object, old),
    // Present only when the compiled stage has rules (a schema without any gets no CEL pass, as kube).
    get validateRules() {
      return compiled().validateRules;
    },
    tree: () => compiled().tree?.() ?? { root: {}, resolve: (node) => node },
  };
}

/** `.spec.replicas` → `spec.replicas`, as the Scale sub-resource reads paths. */
function scaleOf(value: unknown): ScaleSubresource | undefined {
  if (!isPlainObject(value)) return undefined;
  return {
    specReplicasPath: dottedPath(string(value["specReplicasPath"])) ?? "spec.replicas",
    statusReplicasPath: dottedPath(string(value["statusReplicasPath"])) ?? "status.replicas",
    selectorPath: dottedPath(string(value["labelSelectorPath"])) ?? "",
    selectorForm: "string",
  };
}

const COLUMN_TYPES = new Set(["string", "integer", "number", "boolean", "date"]);

/**
 * `additionalPrinterColumns` as Table columns: Name first, then each column's JSONPath value
 * (the first one the path reaches; absent → empty), and nothing else: kube adds its Age column
 * only to a version that declares no columns (`serveDefaultColumnsIfEmpty`), so a version without
 * printer columns gets Name and Age.
 */
export function columnsOf(value: unknown): ColumnSpec[] {
  const declared = (Array.isArray(value) ? value : []).map(record);
  const columns: ColumnSpec[] = [
    { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", cell: (object) => object.metadata.name ?? "" },
  ];
  for (const column of declared) {
    const type = string(column["type"]);
    const path = string(column["jsonPath"]);
    const format = string(column["format"]);
    columns.push({
      name: string(column["name"]),
      type: (COLUMN_TYPES.has(type) ? type : "string") as ColumnSpec["type"],
      ...(format === "name" ? { format: "name" as const } : {}),
      description: string(column["description"]),
      priority: column["priority"] === 0 || column["priority"] === undefined ? 0 : 1,
      cell: (object, context) => cellOf(jsonPathValues(object, path)[0], type, context.now),
    });
  }
  if (declared.length === 0) columns.push(AGE_COLUMN);
  return columns;
}

/** The column kube serves for a version without printer columns, described as ObjectMeta's field. */
const AGE_COLUMN: ColumnSpec = {
  name: "Age",
  type: "date",
  description:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.",
  cell: (object, context) => age(object.metadata.creationTimestamp, context.now),
};

/** A cell as kube's table convertor writes it: dates as the time since (`5m`), other values by type. */
function cellOf(value: unknown, type: string, now: number): Cell {
  if (value === undefined || value === null) return "";
  if (type === "date") return typeof value === "string" ? age(value, now) : "";
  if (type === "integer" || type === "number") return typeof value === "number" ? value : "";
  if (type === "boolean") return typeof value === "boolean" ? value : "";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return stringifyJson(value);
}
