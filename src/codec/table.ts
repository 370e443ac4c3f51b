import type { ApiObject } from "../api/object.js";
import type { Representation } from "./negotiate.js";
import { TABLES, type ColumnSpec } from "./table-columns.js";

export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** The default columns of a kind without its own table: name and creation time. */
export const DEFAULT_COLUMNS: readonly TableColumn[] = [
  { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 0 },
  { name: "Created At", type: "date", format: "", description: "CreationTimestamp is a timestamp representing the server time when this object was created.", priority: 0 },
];

export interface TableInput {
  /** The object kind: picks its columns (default Name and Created At). */
  readonly kind?: string;
  readonly metaGroup: string;
  readonly representation: Extract<Representation, { kind: "table" }>;
  readonly objects: readonly ApiObject[];
  readonly listMeta: Readonly<Record<string, unknown>> | undefined;
}

/** Renders objects as a `Table`: the kind's columns, or Name and Created At. */
export function renderTable(input: TableInput): Record<string, unknown> {
  const apiVersion = `${input.metaGroup}/${input.representation.version}`;
  const specs: readonly ColumnSpec[] | undefined = input.kind === undefined ? undefined : TABLES[input.kind];
  const now = Date.now();
  const columnDefinitions = specs === undefined ? DEFAULT_COLUMNS : specs.map((spec) => ({ name: spec.name, type: spec.type, format: spec.format ?? "", description: spec.description, priority: spec.priority ?? 0 }));
  const cells = (object: ApiObject): unknown[] => (specs === undefined ? [object.metadata.name ?? "", object.metadata.creationTimestamp ?? ""] : specs.map((spec) => spec.cell(object, now)));
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
