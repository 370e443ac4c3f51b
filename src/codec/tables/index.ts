import { AUTOSCALING_TABLES } from "./autoscaling.js";
import { COORDINATION_TABLES, NODE_TABLES, POLICY_TABLES, SCHEDULING_TABLES } from "./cluster.js";
import type { ColumnSpec, KindTables } from "./column.js";
import { ADMISSION_TABLES, APIREGISTRATION_TABLES, CERTIFICATES_TABLES, FLOWCONTROL_TABLES, RBAC_TABLES } from "./control.js";
import { CORE_TABLES } from "./core.js";
import { EVENTS_GROUP_EVENT_COLUMNS } from "./event.js";
import { DISCOVERY_TABLES, NETWORKING_TABLES } from "./networking.js";
import { STORAGE_TABLES } from "./storage.js";
import { APPS_TABLES, BATCH_TABLES } from "./workloads.js";

export type { Cell, CellContext, ColumnSpec } from "./column.js";

/**
 * Column sets by group, then kind, as `kubectl get` shows them against kube-apiserver 1.30. Groups
 * are named as the schema catalogue declares them, without a profile: "" is core, `apps` a plain
 * group, `networking` the prefix of `networking.<apiDomain>`. A kind without an entry is rendered
 * with Name and Created At, as kube does for kinds it has no printer for.
 */
export const TABLES: Readonly<Record<string, KindTables>> = {
  "": CORE_TABLES,
  apps: APPS_TABLES,
  batch: BATCH_TABLES,
  autoscaling: AUTOSCALING_TABLES,
  policy: POLICY_TABLES,
  networking: NETWORKING_TABLES,
  storage: STORAGE_TABLES,
  scheduling: SCHEDULING_TABLES,
  node: NODE_TABLES,
  coordination: COORDINATION_TABLES,
  discovery: DISCOVERY_TABLES,
  events: { Event: EVENTS_GROUP_EVENT_COLUMNS },
  "rbac.authorization": RBAC_TABLES,
  certificates: CERTIFICATES_TABLES,
  admissionregistration: ADMISSION_TABLES,
  "flowcontrol.apiserver": FLOWCONTROL_TABLES,
  apiregistration: APIREGISTRATION_TABLES,
};

/** The columns of a kind in a group named as in `TABLES`; undefined when it prints with the default. */
export function columnsFor(group: string, kind: string): readonly ColumnSpec[] | undefined {
  const kinds = Object.hasOwn(TABLES, group) ? TABLES[group] : undefined;
  return kinds !== undefined && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
}
