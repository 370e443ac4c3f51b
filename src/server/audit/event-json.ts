import type { AuditEvent, AuditEventEncoder, AuditObjectRef, AuditResponseStatus, AuditUser } from "./event.js";

/** Characters JSON.stringify escapes in a string: controls, quote, backslash, and (when lone) surrogates. */
const NEEDS_ESCAPE = new RegExp(`[${String.fromCharCode(0)}-${String.fromCharCode(0x1f)}"\\\\${String.fromCharCode(0xd800)}-${String.fromCharCode(0xdfff)}]`);

/** A JSON string literal, exactly as JSON.stringify writes it (which is the slow path, taken only when something needs escaping). */
export function quoteJson(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * Short values that repeat from request to request (verbs, user names and groups, resources,
 * namespaces, user agents, authorization annotations): quoted once. The map is emptied when
 * full, so a stream of new values costs a lookup each and never grows it.
 */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 4096;
const QUOTED_LENGTH_MAX = 256;

function quoteRepeated(value: string): string {
  if (value.length > QUOTED_LENGTH_MAX) return quoteJson(value);
  let json = QUOTED.get(value);
  if (json === undefined) {
    json = quoteJson(value);
    if (QUOTED.size >= QUOTED_MAX) QUOTED.clear();
    QUOTED.set(value, json);
  }
  return json;
}

/** The last stage timestamp quoted: the events of one millisecond share it. */
let lastTimestamp = "";
let lastTimestampJson = '""';

function quoteTimestamp(value: string): string {
  if (value !== lastTimestamp) {
    lastTimestamp = value;
    lastTimestampJson = quoteJson(value);
  }
  return lastTimestampJson;
}

function stringsJson(values: readonly string[]): string {
  let json = "[";
  for (let index = 0; index < values.length; index++) json += `${index === 0 ? "" : ","}${quoteRepeated(values[index] as string)}`;
  return `${json}]`;
}

function userJson(user: AuditUser): string {
  let json = `{"username":${quoteRepeated(user.username)}`;
  if (user.uid !== undefined) json += `,"uid":${quoteRepeated(user.uid)}`;
  if (user.groups !== undefined) json += `,"groups":${stringsJson(user.groups)}`;
  if (user.extra !== undefined) json += `,"extra":${JSON.stringify(user.extra)}`;
  return `${json}}`;
}

/** The objectRef's fields in kube's order (the order the audit filter sets them in); a name is seldom repeated. */
function refJson(ref: AuditObjectRef): string {
  let json = "";
  if (ref.resource !== undefined) json += `,"resource":${quoteRepeated(ref.resource)}`;
  if (ref.namespace !== undefined) json += `,"namespace":${quoteRepeated(ref.namespace)}`;
  if (ref.name !== undefined) json += `,"name":${quoteJson(ref.name)}`;
  if (ref.uid !== undefined) json += `,"uid":${quoteJson(ref.uid)}`;
  if (ref.apiGroup !== undefined) json += `,"apiGroup":${quoteRepeated(ref.apiGroup)}`;
  if (ref.apiVersion !== undefined) json += `,"apiVersion":${quoteRepeated(ref.apiVersion)}`;
  if (ref.resourceVersion !== undefined) json += `,"resourceVersion":${quoteJson(ref.resourceVersion)}`;
  if (ref.subresource !== undefined) json += `,"subresource":${quoteRepeated(ref.subresource)}`;
  return json === "" ? "{}" : `{${json.slice(1)}}`;
}

function statusJson(status: AuditResponseStatus): string {
  // Most responses: a success, only the code.
  if (status.status === undefined && status.message === undefined && status.reason === undefined && status.details === undefined)
    return `{"metadata":{},"code":${status.code}}`;
  return JSON.stringify(status);
}

function annotationsJson(annotations: Readonly<Record<string, string>>): string {
  let json = "";
  for (const key of Object.keys(annotations)) json += `${json === "" ? "{" : ","}${quoteRepeated(key)}:${quoteRepeated(annotations[key] as string)}`;
  return json === "" ? "{}" : `${json}}`;
}

/**
 * Writes events as kube's log backend does: the `Event` as JSON, fields in kube's order (the
 * order the audit filter builds them in), absent fields left out; the text is exactly
 * `JSON.stringify(event)` for such an event (event-json.test.ts pins it). One encoder per
 * request: the events of a request share most fields (the same strings and objects, never
 * changed once handed over), so the parts that did not change since the encoder's last event
 * are reused rather than serialized again. Any encoder gives the right text for any event: a
 * part is reused only when every field it covers is the same (`===`) as when it was made.
 */
export class EventJsonEncoder implements AuditEventEncoder {
  // apiVersion, level and auditID: the text up to the stage.
  private headOf: readonly [string, string, string] | undefined;
  private head = "";
  // requestURI to objectRef.
  private middleOf: readonly unknown[] | undefined;
  private middle = "";
  private receivedOf: string | undefined;
  private received = "";
  private annotationsOf: Readonly<Record<string, string>> | undefined;
  private annotations = "";

  encode(event: AuditEvent): string {
    const headOf = this.headOf;
    if (headOf === undefined || headOf[0] !== event.apiVersion || headOf[1] !== event.level || headOf[2] !== event.auditID) {
      this.headOf = [event.apiVersion, event.level, event.auditID];
      this.head = `{"kind":"Event","apiVersion":${quoteRepeated(event.apiVersion)},"level":${quoteRepeated(event.level)},"auditID":${quoteJson(event.auditID)},"stage":`;
    }
    if (!this.sameMiddle(event)) {
      this.middleOf = [event.requestURI, event.verb, event.user, event.impersonatedUser, event.sourceIPs, event.userAgent, event.objectRef];
      let middle = `,"requestURI":${quoteJson(event.requestURI)},"verb":${quoteRepeated(event.verb)},"user":${userJson(event.user)}`;
      if (event.impersonatedUser !== undefined) middle += `,"impersonatedUser":${userJson(event.impersonatedUser)}`;
      if (event.sourceIPs !== undefined) middle += `,"sourceIPs":${stringsJson(event.sourceIPs)}`;
      if (event.userAgent !== undefined) middle += `,"userAgent":${quoteRepeated(event.userAgent)}`;
      if (event.objectRef !== undefined) middle += `,"objectRef":${refJson(event.objectRef)}`;
      // Made flat once (reading a character flattens V8's string of pieces): each event then copies one piece.
      middle.charCodeAt(middle.length - 1);
      this.middle = middle;
    }
    let json = `${this.head}${quoteRepeated(event.stage)}${this.middle}`;
    if (event.responseStatus !== undefined) json += `,"responseStatus":${statusJson(event.responseStatus)}`;
    // Bodies are the request's own JSON, parsed: serialized as they are.
    if (event.requestObject !== undefined) json += `,"requestObject":${JSON.stringify(event.requestObject)}`;
    if (event.responseObject !== undefined) json += `,"responseObject":${JSON.stringify(event.responseObject)}`;
    if (this.receivedOf !== event.requestReceivedTimestamp) {
      this.receivedOf = event.requestReceivedTimestamp;
      this.received = `,"requestReceivedTimestamp":${quoteJson(event.requestReceivedTimestamp)},"stageTimestamp":`;
    }
    json += `${this.received}${quoteTimestamp(event.stageTimestamp)}`;
    if (event.annotations !== undefined) {
      if (this.annotationsOf !== event.annotations) {
        this.annotationsOf = event.annotations;
        this.annotations = `,"annotations":${annotationsJson(event.annotations)}`;
      }
      json += this.annotations;
    }
    return `${json}}`;
  }

  private sameMiddle(event: AuditEvent): boolean {
    const of = this.middleOf;
    return (
      of !== undefined &&
      of[0] === event.requestURI &&
      of[1] === event.verb &&
      of[2] === event.user &&
      of[3] === event.impersonatedUser &&
      of[4] === event.sourceIPs &&
      of[5] === event.userAgent &&
      of[6] === event.objectRef
    );
  }
}

/** One event's JSON, with nothing to reuse (events handed over without their request's encoder). */
export function encodeEvent(event: AuditEvent): string {
  return new EventJsonEncoder().encode(event);
}
