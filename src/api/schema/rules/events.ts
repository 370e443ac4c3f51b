import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateQualifiedName } from "../../validation.js";
import { invalidValue, required } from "../field-path.js";
import { recordAt } from "./values.js";

/**
 * events.<apiDomain>/v1 Events (kube's ValidateEventCreate/Update for the new API): on creation
 * `eventTime`, `action`, `reason`, `reportingController` and `reportingInstance` are required,
 * `type` is Normal or Warning, a series has a count of at least 2 and a last observed time, and
 * the deprecated fields (`deprecatedSource`, `deprecatedFirstTimestamp`,
 * `deprecatedLastTimestamp`, `deprecatedCount`) must be unset. Updates keep the event's identity.
 */

const LENGTH_LIMIT = 128;
const NOTE_LIMIT = 1024;
const DEPRECATED = ["deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount", "deprecatedSource"];
const IMMUTABLE = ["regarding", "related", "reason", "action", "reportingController", "reportingInstance", "eventTime", "type"];

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0) return false;
  return !(isPlainObject(value) && Object.values(value).every((item) => item === undefined || item === ""));
}

function text(object: ApiObject, name: string): string {
  const value = object[name];
  return typeof value === "string" ? value : "";
}

function validateNewEvent(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  if (!present(object["eventTime"])) errors.push(required("eventTime"));
  const type = text(object, "type");
  if (type !== "Normal" && type !== "Warning") errors.push(invalidValue("type", "", `has invalid value: ${type}`));
  for (const name of DEPRECATED) if (present(object[name])) errors.push(invalidValue(name, "", "needs to be unset"));
  const controller = text(object, "reportingController");
  if (controller === "") errors.push(required("reportingController"));
  else for (const message of validateQualifiedName(controller)) errors.push(invalidValue("reportingController", controller, message));
  for (const name of ["reportingInstance", "action", "reason"]) {
    const value = text(object, name);
    if (value === "") errors.push(required(name));
    else if (value.length > LENGTH_LIMIT) errors.push(invalidValue(name, "", `can have at most ${LENGTH_LIMIT} characters`));
  }
  if (text(object, "note").length > NOTE_LIMIT) errors.push(invalidValue("note", "", `can have at most ${NOTE_LIMIT} characters`));
  const series = recordAt(object, "series");
  if (series !== undefined) {
    const count = series["count"];
    if (typeof count !== "number" || count < 2) errors.push(invalidValue("series.count", "", "should be at least 2"));
    if (!present(series["lastObservedTime"])) errors.push(required("series.lastObservedTime"));
  }
  return errors;
}

export function validateEventsV1(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validateNewEvent(object);
  const errors: FieldError[] = [];
  for (const name of IMMUTABLE) {
    if (JSON.stringify(object[name] ?? null) !== JSON.stringify(old[name] ?? null)) errors.push(invalidValue(name, object[name] ?? "", "field is immutable"));
  }
  return errors;
}
