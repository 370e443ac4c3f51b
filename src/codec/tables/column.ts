import type { ApiObject } from "../../api/object.js";
import { age } from "./format.js";

/** What a cell may read besides the object: the render time and the profile's label/annotation domain. */
export interface CellContext {
  /** Milliseconds since the epoch; ages and durations are measured to it. */
  readonly now: number;
  /** The profile's `keyDomain`, for well-known labels and annotations (node roles, default class). */
  readonly keyDomain: string;
}

export type Cell = string | number | boolean;

/**
 * One Table column and how its cell is computed from an object of the kind. `cell` must not
 * mutate the object; it sees the object in the version being served.
 */
export interface ColumnSpec {
  readonly name: string;
  /** The column's declared type, which kubectl uses only to align; cells may differ (an integer in a "string" column). */
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly format?: "name";
  readonly description: string;
  /** 0: always shown; 1: shown only with `-o wide`. Every cell is sent either way. */
  readonly priority?: 0 | 1;
  cell(object: ApiObject, context: CellContext): Cell;
}

/** Column sets of one group's kinds, by kind. */
export type KindTables = Readonly<Record<string, readonly ColumnSpec[]>>;

export const NAME: ColumnSpec = {
  name: "Name",
  type: "string",
  format: "name",
  description: "The object's name.",
  cell: (object) => object.metadata.name ?? "",
};

export const AGE: ColumnSpec = {
  name: "Age",
  type: "string",
  description: "Time since the object was created.",
  cell: (object, context) => age(object.metadata.creationTimestamp, context.now),
};

/** A default-priority string column. */
export function text(name: string, description: string, cell: ColumnSpec["cell"]): ColumnSpec {
  return { name, type: "string", description, cell };
}

/** A default-priority integer column. */
export function integer(name: string, description: string, cell: ColumnSpec["cell"]): ColumnSpec {
  return { name, type: "integer", description, cell };
}

/** A default-priority boolean column. */
export function boolean(name: string, description: string, cell: ColumnSpec["cell"]): ColumnSpec {
  return { name, type: "boolean", description, cell };
}

/** The column shown only with `-o wide`. */
export function wide(column: ColumnSpec): ColumnSpec {
  return { ...column, priority: 1 };
}
