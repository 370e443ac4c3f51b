import { isPlainObject, type JsonObject } from "../api/object.js";
import { FieldSet } from "./field-set.js";
import type { VersionedSet } from "./updater.js";

export type Operation = "Apply" | "Update";

/** What identifies a managedFields entry: appliers are one entry whatever version they use. */
export interface ManagerInfo {
  readonly manager: string;
  readonly operation: Operation;
  /** Part of an `Update` entry's identity only. */
  readonly apiVersion?: string;
  readonly subresource?: string;
}

/**
 * The identifier of an entry, kube's JSON of its identifying fields (`manager`, `operation`,
 * `apiVersion` for updaters, `subresource`). Conflict messages are printed from it.
 */
export function managerIdentifier(info: ManagerInfo): string {
  const identity: Record<string, string> = { manager: info.manager, operation: info.operation };
  if (info.operation === "Update" && info.apiVersion !== undefined && info.apiVersion !== "") identity["apiVersion"] = info.apiVersion;
  if (info.subresource !== undefined && info.subresource !== "") identity["subresource"] = info.subresource;
  return JSON.stringify(identity);
}

/** Identifiers read so far: the same few managers write again and again (bounded, cleared when full). */
const PARSED_IDENTIFIERS = new Map<string, ManagerInfo>();
const MAX_PARSED_IDENTIFIERS = 4096;

/** The fields of an identifier made by `managerIdentifier` (a shared, frozen object: copy before changing it). */
export function parseIdentifier(identifier: string): ManagerInfo {
  const known = PARSED_IDENTIFIERS.get(identifier);
  if (known !== undefined) return known;
  const info = Object.freeze(parseIdentifierUncached(identifier));
  if (PARSED_IDENTIFIERS.size >= MAX_PARSED_IDENTIFIERS) PARSED_IDENTIFIERS.clear();
  PARSED_IDENTIFIERS.set(identifier, info);
  return info;
}

function parseIdentifierUncached(identifier: string): ManagerInfo {
  const parsed: unknown = JSON.parse(identifier);
  if (!isPlainObject(parsed)) throw new Error(`invalid manager identifier ${identifier}`);
  const text = (name: string): string | undefined => (typeof parsed[name] === "string" ? (parsed[name] as string) : undefined);
  return {
    manager: text("manager") ?? "",
    operation: text("operation") === "Apply" ? "Apply" : "Update",
    apiVersion: text("apiVersion"),
    subresource: text("subresource"),
  };
}

/** Decoded managedFields: what each manager owns and when it last changed something. */
export interface Managed {
  readonly sets: Map<string, VersionedSet>;
  readonly times: Map<string, string>;
}

export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/** Thrown for managedFields that are not kube's format (the entries are then ignored). */
export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManagedFieldsError";
  }
}

/** Reads `metadata.managedFields` as kube does: `Apply`/`Update` entries with an apiVersion and FieldsV1. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError("managedFields must be a list");
  entries.forEach((entry, index) => {
    if (!isPlainObject(entry)) throw new ManagedFieldsError(`managed fields entry ${index} must be an object`);
    const operation = entry["operation"];
    if (operation !== "Apply" && operation !== "Update") throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    const apiVersion = entry["apiVersion"];
    if (typeof apiVersion !== "string" || apiVersion === "") throw new ManagedFieldsError("apiVersion must not be empty");
    const fieldsType = entry["fieldsType"];
    if (fieldsType === undefined || fieldsType === "") throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${index}`);
    if (fieldsType !== "FieldsV1") throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${index}`);
    const manager = typeof entry["manager"] === "string" ? entry["manager"] : "";
    const subresource = typeof entry["subresource"] === "string" ? entry["subresource"] : "";
    let set = FieldSet.EMPTY;
    if (entry["fieldsV1"] !== undefined && entry["fieldsV1"] !== null) {
      try {
        set = FieldSet.fromFieldsV1(entry["fieldsV1"]);
      } catch (error) {
        throw new ManagedFieldsError(`error decoding versioned set of entry ${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const identifier = managerIdentifier({ manager, operation, apiVersion, subresource });
    managed.sets.set(identifier, { set, apiVersion, applied: operation === "Apply" });
    if (typeof entry["time"] === "string") managed.times.set(identifier, entry["time"]);
  });
  return managed;
}

/** `[{}]` (only empty entries) asks for ownership to be reset; an empty list does not. */
export function isResetManagedFields(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length > 0 && entries.every((entry) => isPlainObject(entry) && Object.keys(entry).length === 0);
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
}

/**
 * Writes managedFields in kube's form and order: appliers first, then by time, manager,
 * apiVersion and sub-resource; fields in kube's key order.
 */
export function encodeManagedFields(managed: Managed): JsonObject[] {
  const entries: { info: ManagerInfo; object: JsonObject; time: string | undefined }[] = [];
  for (const [identifier, owned] of managed.sets) {
    const info = parseIdentifier(identifier);
    const operation: Operation = owned.applied ? "Apply" : info.operation;
    const time = managed.times.get(identifier);
    const object: JsonObject = { manager: info.manager, operation, apiVersion: owned.apiVersion };
    if (time !== undefined) object["time"] = time;
    object["fieldsType"] = "FieldsV1";
    object["fieldsV1"] = owned.set.toFieldsV1();
    if (info.subresource !== undefined && info.subresource !== "") object["subresource"] = info.subresource;
    entries.push({ info: { ...info, operation, apiVersion: owned.apiVersion }, object, time });
  }
  const text = (value: string | undefined): string => value ?? "";
  entries.sort((a, b) => {
    if (a.info.operation !== b.info.operation) return a.info.operation < b.info.operation ? -1 : 1;
    const byTime = seconds(a.time) - seconds(b.time);
    if (byTime !== 0) return byTime;
    for (const field of ["manager", "apiVersion", "subresource"] as const) {
      const left = text(a.info[field]);
      const right = text(b.info[field]);
      if (left !== right) return left < right ? -1 : 1;
    }
    return 0;
  });
  return entries.map((entry) => entry.object);
}

/** At most this many `Update` entries are kept; older ones merge into one per version. */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = "ancient-changes";

/** Caps the updaters as kube does: the oldest merge into an `ancient-changes` entry per API version. */
export function capUpdateManagers(managed: Managed): void {
  const updaters = (): string[] => [...managed.sets].filter(([, owned]) => !owned.applied).map(([identifier]) => identifier);
  let current = updaters();
  while (current.length > MAX_UPDATE_MANAGERS) {
    const candidates = current.filter((identifier) => parseIdentifier(identifier).manager !== ANCIENT_CHANGES);
    candidates.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));
    const oldest = candidates[0];
    if (oldest === undefined) return;
    const owned = managed.sets.get(oldest);
    if (owned === undefined) return;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: "Update", apiVersion: owned.apiVersion });
    const previous = managed.sets.get(bucket);
    managed.sets.set(bucket, { set: previous === undefined ? owned.set : owned.set.union(previous.set), apiVersion: owned.apiVersion, applied: false });
    const time = managed.times.get(oldest);
    if (time !== undefined) managed.times.set(bucket, time);
    else managed.times.delete(bucket);
    managed.sets.delete(oldest);
    managed.times.delete(oldest);
    current = updaters();
  }
}
