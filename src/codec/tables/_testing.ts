// Shared by the tables' tests: a fixed clock, objects created an hour before it, rows by group and kind.
import type { ApiObject } from "../../api/object.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import type { Cell, CellContext } from "./column.js";
import { columnsFor, TABLES } from "./index.js";

export const NOW = Date.parse("2024-05-01T12:00:00Z");
/** An hour before NOW: ages read `60m`. */
export const CREATED = "2024-05-01T11:00:00Z";
export const KEY_DOMAIN = ORCH_PROFILE.keyDomain;
export const CONTEXT: CellContext = { now: NOW, keyDomain: KEY_DOMAIN };

/** `minutes` before NOW, as an RFC 3339 timestamp. */
export function ago(minutes: number): string {
  return new Date(NOW - minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** An object named `name`, created at CREATED, with `fields` (metadata merged). */
export function object(name: string, fields: Record<string, unknown> = {}): ApiObject {
  const { metadata, ...rest } = fields;
  return { metadata: { name, creationTimestamp: CREATED, ...(metadata as Record<string, unknown> | undefined) }, ...rest };
}

/** Every cell of the row, the `-o wide` ones included. */
export function cells(group: string, kind: string, value: ApiObject): Cell[] {
  const columns = columnsFor(group, kind);
  if (columns === undefined) throw new Error(`no table for ${group}/${kind}`);
  return columns.map((column) => column.cell(value, CONTEXT));
}

/** The `group/Kind` of every table in `groups`. */
export function tableKeys(groups: (group: string) => boolean): string[] {
  return Object.entries(TABLES).flatMap(([group, kinds]) => (groups(group) ? Object.keys(kinds).map((kind) => `${group}/${kind}`) : []));
}

export interface RowCase {
  readonly group: string;
  readonly kind: string;
  readonly title: string;
  readonly object: ApiObject;
  readonly cells: readonly Cell[];
}
