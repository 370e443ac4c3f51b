import type { ApiObject } from "../../api/object.js";
import { text, wide, type ColumnSpec } from "./column.js";
import { age, num, present, record, str } from "./format.js";

/** Where an Event shape keeps the fields the table reads (core v1 and the events group name them differently). */
interface EventFields {
  readonly regarding: string;
  readonly note: string;
  readonly source: string;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly count: string;
  readonly reportingController: string;
}

const CORE_FIELDS: EventFields = {
  regarding: "involvedObject",
  note: "message",
  source: "source",
  firstTimestamp: "firstTimestamp",
  lastTimestamp: "lastTimestamp",
  count: "count",
  reportingController: "reportingComponent",
};

const EVENTS_GROUP_FIELDS: EventFields = {
  regarding: "regarding",
  note: "note",
  source: "deprecatedSource",
  firstTimestamp: "deprecatedFirstTimestamp",
  lastTimestamp: "deprecatedLastTimestamp",
  count: "deprecatedCount",
  reportingController: "reportingController",
};

/** First and last seen (a series' last observation wins) and how often. */
function occurrences(event: ApiObject, fields: EventFields, now: number): { first: string; last: string; count: number } {
  const firstTime = str(event[fields.firstTimestamp]);
  const first = firstTime !== "" ? age(firstTime, now) : age(event["eventTime"], now);
  const lastTime = str(event[fields.lastTimestamp]);
  const series = present(event["series"]);
  if (series !== undefined) return { first, last: age(series["lastObservedTime"], now), count: num(series["count"]) };
  // An event reported once carries no count in the newer shape.
  const count = num(event[fields.count]);
  return { first, last: lastTime !== "" ? age(lastTime, now) : first, count: count === 0 ? 1 : count };
}

function regardingCell(event: ApiObject, fields: EventFields): string {
  const regarding = record(event[fields.regarding]);
  const kind = str(regarding["kind"]).toLowerCase();
  const name = str(regarding["name"]);
  return name === "" ? kind : `${kind}/${name}`;
}

function sourceCell(event: ApiObject, fields: EventFields): string {
  const source = record(event[fields.source]);
  const component = str(source["component"]) || str(event[fields.reportingController]);
  const instance = str(source["host"]) || str(event["reportingInstance"]);
  return instance === "" ? component : `${component}, ${instance}`;
}

function eventColumns(fields: EventFields): readonly ColumnSpec[] {
  return [
    text("Last Seen", "Time since the event was last observed.", (event, context) => occurrences(event, fields, context.now).last),
    text("Type", "Normal or Warning.", (event) => str(event["type"])),
    text("Reason", "Why the event happened, in one word.", (event) => str(event["reason"])),
    text("Object", "The object the event is about, as kind/name.", (event) => regardingCell(event, fields)),
    wide(text("Subobject", "The part of the object the event is about (a container).", (event) => str(record(event[fields.regarding])["fieldPath"]))),
    wide(text("Source", "The component (and host) that reported the event.", (event) => sourceCell(event, fields))),
    text("Message", "What happened, for people.", (event) => str(event[fields.note]).trim()),
    wide(text("First Seen", "Time since the event was first observed.", (event, context) => occurrences(event, fields, context.now).first)),
    wide(text("Count", "How many times the event was observed.", (event, context) => occurrences(event, fields, context.now).count)),
    wide({ name: "Name", type: "string", format: "name", description: "The event's name.", cell: (event) => event.metadata.name ?? "" }),
  ];
}

/** Core v1 Events. */
export const CORE_EVENT_COLUMNS = eventColumns(CORE_FIELDS);

/** The events group's Events: the same columns, read from that group's field names. */
export const EVENTS_GROUP_EVENT_COLUMNS = eventColumns(EVENTS_GROUP_FIELDS);
