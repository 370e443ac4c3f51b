import type { ApiObject } from "../api/object.js";
import type { Representation } from "./negotiate.js";

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
  readonly metaGroup: string;
  readonly representation: Extract<Representation, { kind: "table" }>;
  readonly objects: readonly ApiObject[];
  readonly listMeta: Readonly<Record<string, unknown>> | undefined;
}

/** Renders objects as a `Table` with the default columns. */
export function renderTable(input: TableInput): Record<string, unknown> {
  const apiVersion = `${input.metaGroup}/${input.representation.version}`;
  return {
    kind: "Table",
    apiVersion,
    metadata: input.listMeta ?? {},
    columnDefinitions: DEFAULT_COLUMNS,
    rows: input.objects.map((object) => ({
      cells: [object.metadata.name ?? "", object.metadata.creationTimestamp ?? ""],
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
