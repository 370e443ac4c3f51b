import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { validateQualifiedName } from "../../validation.js";
import { invalidValue, required } from "../field-path.js";
import { recordAt } from "./values.js";

/**
 * Events, as kube's ValidateEventCreate judges them (the paths are kube's internal names, which
 * are core/v1's: `involvedObject`, `message`, `firstTimestamp`…). Every version first gets the
 * legacy rules: an event without `eventTime` must name its object's namespace (none, or its
 * own; "default" also takes an object without one); an event with one needs a reporting
 * controller (core/v1 calls it `reportingComponent`), instance, action and reason of bounded
 * length. Only events.<apiDomain>/v1 adds the strict rules: `eventTime` required, `type` Normal
 * or Warning, a series of at least 2 with a last observed time, the deprecated fields unset.
 * Updates through events.<apiDomain>/v1 keep the event's identity.
 */

const LENGTH_LIMIT = 128;
const NOTE_LIMIT = 1024;
/** events.<apiDomain>/v1's deprecated fields and kube's (internal, core/v1) names for them. */
const DEPRECATED: readonly (readonly [string, string])[] = [
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["deprecatedSource", "source"],
];
/** kube's qualified-name text for a name part that does not match (an empty one too). */
const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0) return false;
  return !(isPlainObject(value) && Object.values(value).every((item) => item === undefined || item === ""));
}

function text(object: Readonly<Record<string, unknown>> | undefined, name: string): string {
  const value = object?.[name];
  return typeof value === "string" ? value : "";
}

/** kube's system namespace, which (with "default") may hold a timed event about a cluster-scoped object: the profiles' (validators see no profile). */
const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set([ORCH_PROFILE.systemNamespace, KUBERNETES_PROFILE.systemNamespace]);

/** The field names of one API version of Event. */
interface EventFields {
  readonly involvedObject: string;
  readonly reportingController: string;
  readonly message: string;
}

const CORE_FIELDS: EventFields = { involvedObject: "involvedObject", reportingController: "reportingComponent", message: "message" };
const EVENTS_FIELDS: EventFields = { involvedObject: "regarding", reportingController: "reportingController", message: "note" };

/** kube's legacyValidateEvent, which every Event version passes. */
function legacyEventErrors(object: ApiObject, fields: EventFields, reportingPath: string): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = text(recordAt(object, "metadata"), "namespace");
  const involvedNamespace = text(recordAt(object, fields.involvedObject), "namespace");
  const mismatch = (): FieldError => invalidValue("involvedObject.namespace", involvedNamespace, "does not match event.namespace");
  if (!present(object["eventTime"])) {
    if (involvedNamespace === "" ? namespace !== "" && namespace !== "default" : namespace !== involvedNamespace) errors.push(mismatch());
    return errors;
  }
  if (involvedNamespace === "" && namespace !== "default" && !SYSTEM_NAMESPACES.has(namespace)) errors.push(mismatch());
  const controller = text(object, fields.reportingController);
  if (controller === "")
    errors.push(required(reportingPath), invalidValue(reportingPath, "", "name part must be non-empty"), invalidValue(reportingPath, "", QUALIFIED_NAME_PART));
  else for (const message of validateQualifiedName(controller)) errors.push(invalidValue(reportingPath, controller, message));
  for (const name of ["reportingInstance", "action", "reason"]) {
    const value = text(object, name);
    if (value === "") errors.push(required(name));
    else if (value.length > LENGTH_LIMIT) errors.push(invalidValue(name, "", `can have at most ${LENGTH_LIMIT} characters`));
  }
  if (text(object, fields.message).length > NOTE_LIMIT) errors.push(invalidValue("message", "", `can have at most ${NOTE_LIMIT} characters`));
  return errors;
}

/** kube's validateV1EventSeries: a series counts at least 2 and has a last observed time. */
function seriesErrors(object: ApiObject): FieldError[] {
  const series = recordAt(object, "series");
  if (series === undefined) return [];
  const errors: FieldError[] = [];
  const count = series["count"];
  if (typeof count !== "number" || count < 2) errors.push(invalidValue("series.count", "", "should be at least 2"));
  if (!present(series["lastObservedTime"])) errors.push(required("series.lastObservedTime"));
  return errors;
}

function validateNewEvent(object: ApiObject): FieldError[] {
  const errors = legacyEventErrors(object, EVENTS_FIELDS, "reportingController");
  errors.push(...seriesErrors(object));
  if (!present(object["eventTime"])) errors.push(required("eventTime"));
  const type = text(object, "type");
  if (type !== "Normal" && type !== "Warning") errors.push(invalidValue("type", "", `has invalid value: ${type}`));
  for (const [name, path] of DEPRECATED) if (present(object[name])) errors.push(invalidValue(path, "", "needs to be unset"));
  return errors;
}

/** core/v1 Events (created or updated), and events.<apiDomain>/v1beta1's: kube's legacy rules only, for old clients. */
export function validateCoreEvent(object: ApiObject): FieldError[] {
  return legacyEventErrors(object, CORE_FIELDS, "reportingComponent");
}

/** events.<apiDomain>/v1beta1 Events: the legacy rules with that version's names. */
export function validateEventsV1beta1(object: ApiObject): FieldError[] {
  return legacyEventErrors(object, EVENTS_FIELDS, "reportingController");
}

/**
 * kube's immutable fields of an updated event, in its order, as [events/v1 name, kube's path]
 * (eventTime is compared apart, to the microsecond).
 */
const IMMUTABLE: readonly (readonly [string, string])[] = [
  ["regarding", "involvedObject"],
  ["reason", "reason"],
  ["note", "message"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["type", "type"],
];
const IMMUTABLE_AFTER_TIME: readonly (readonly [string, string])[] = [
  ["action", "action"],
  ["related", "related"],
  ["reportingController", "reportingController"],
  ["reportingInstance", "reportingInstance"],
];

/** The same value for kube: absent, null and empty are alike (Go's zero values). */
function same(a: unknown, b: unknown): boolean {
  const normal = (value: unknown): string => JSON.stringify(present(value) ? value : null);
  return normal(a) === normal(b);
}

/** A MicroTime to the microsecond, for kube's tolerance of sub-microsecond changes. */
function microseconds(value: unknown): string {
  if (typeof value !== "string") return "";
  const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (match === null) return value;
  const epoch = Date.parse(`${match[1]}${match[3]}`);
  return `${epoch}.${(match[2] ?? "").padEnd(6, "0").slice(0, 6)}`;
}

export function validateEventsV1(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validateNewEvent(object);
  // kube's ValidateEventUpdate: the legacy rules for the new event, the series when it changed, then its identity.
  const errors = legacyEventErrors(object, EVENTS_FIELDS, "reportingController");
  if (!same(object["series"], old["series"])) {
    errors.push(...seriesErrors(object));
  }
  const immutable = ([name, path]: readonly [string, string]): void => {
    if (!same(object[name], old[name])) errors.push(invalidValue(path, object[name] ?? "", "field is immutable"));
  };
  IMMUTABLE.forEach(immutable);
  if (microseconds(object["eventTime"]) !== microseconds(old["eventTime"]))
    errors.push(invalidValue("eventTime", object["eventTime"] ?? "", "field is immutable"));
  IMMUTABLE_AFTER_TIME.forEach(immutable);
  return errors;
}
