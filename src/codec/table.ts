import type { ApiObject } from "../api/object.js";
import { KUBERNETES_PROFILE, metaGroup, ORCH_PROFILE, type Profile } from "../api/profile.js";
import type { Representation } from "./negotiate.js";
import { columnsFor, type CellContext, type ColumnSpec } from "./tables/index.js";

export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** The default columns of a kind without its own table: name and creation time. */
const DEFAULT_COLUMNS: readonly TableColumn[] = [
  { name: "Name", type: "string", format: "name", description: "The object's name.", priority: 0 },
  { name: "Created At", type: "date", format: "", description: "When the object was created.", priority: 0 },
];

export interface TableInput {
  /** The served objects' `apiVersion` (`networking.<apiDomain>/v1`): with `kind`, picks the columns. */
  readonly apiVersion?: string;
  /** The object kind; without one (or without a table for it) the default Name and Created At. */
  readonly kind?: string;
  /** The server's own meta group: names the profile whose domains the cells need. The Table is written in `representation.group`. */
  readonly metaGroup: string;
  readonly representation: Extract<Representation, { kind: "table" }>;
  readonly objects: readonly ApiObject[];
  readonly listMeta: Readonly<Record<string, unknown>> | undefined;
  /** The kind's columns when they are data (custom resources' printer columns); otherwise found by apiVersion and kind. */
  readonly columns?: readonly ColumnSpec[];
  /** Render time in milliseconds since the epoch (default: now); ages are measured to it. */
  readonly now?: number;
}

const PROFILES: readonly Profile[] = [ORCH_PROFILE, KUBERNETES_PROFILE];

/**
 * The group of an apiVersion as the tables name it: the prefix under the profile's API domain
 * (`rbac.authorization.<apiDomain>` → `rbac.authorization`), other groups as they are.
 */
export function tableGroup(apiVersion: string, profile: Profile | undefined): string {
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const suffix = profile === undefined ? undefined : `.${profile.apiDomain}`;
  return suffix !== undefined && group.endsWith(suffix) ? group.slice(0, -suffix.length) : group;
}

/** The columns for the input: the kind's own, keyed by its group and kind, or undefined for the default. */
function specsFor(input: TableInput, profile: Profile | undefined): readonly ColumnSpec[] | undefined {
  if (input.columns !== undefined) return input.columns;
  if (input.kind === undefined || input.apiVersion === undefined) return undefined;
  return columnsFor(tableGroup(input.apiVersion, profile), input.kind);
}

/**
 * Renders objects as a `Table`: the kind's columns (every cell, the `-o wide` ones included; the
 * client hides priority-1 columns), or Name and Created At. The meta group names the profile,
 * whose domains the cells need (group prefixes, well-known labels and annotations).
 */
export function renderTable(input: TableInput): Record<string, unknown> {
  const apiVersion = `${input.representation.group}/${input.representation.version}`;
  const profile = PROFILES.find((candidate) => metaGroup(candidate) === input.metaGroup);
  const specs = specsFor(input, profile);
  const context: CellContext = { now: input.now ?? Date.now(), keyDomain: profile?.keyDomain ?? "" };
  const columnDefinitions =
    specs === undefined
      ? DEFAULT_COLUMNS
      : specs.map((spec) => ({ name: spec.name, type: spec.type, format: spec.format ?? "", description: spec.description, priority: spec.priority ?? 0 }));
  const cells = (object: ApiObject): unknown[] =>
    specs === undefined ? [object.metadata.name ?? "", object.metadata.creationTimestamp ?? ""] : specs.map((spec) => spec.cell(object, context));
  return {
    kind: "Table",
    apiVersion,
    metadata: input.listMeta ?? {},
    columnDefinitions,
    rows: input.objects.map((object) => ({
      cells: cells(object),
      object: rowObject(object, input.representation.includeObject, apiVersion),
    })),
  };
}

function rowObject(object: ApiObject, include: "None" | "Metadata" | "Object", apiVersion: string): unknown {
  switch (include) {
    case "None":
      return undefined;
    case "Object":
      return object;
    case "Metadata":
      return { kind: "PartialObjectMetadata", apiVersion, metadata: object.metadata };
  }
}
