import type { AuditEvent, AuditEventEncoder, AuditObjectRef, AuditResponseStatus, AuditUser } from "./event.js";
import type { LogLines } from "./log-file.js";

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

/** The last received timestamp's fragment, up to the stage timestamp: the requests of one millisecond share it. */
let lastReceived = "";
let lastReceivedJson = ',"requestReceivedTimestamp":"","stageTimestamp":';

function receivedJson(value: string): string {
  if (value !== lastReceived) {
    lastReceived = value;
    lastReceivedJson = `,"requestReceivedTimestamp":${quoteJson(value)},"stageTimestamp":`;
  }
  return lastReceivedJson;
}

function stringsJson(values: readonly string[]): string {
  let json = "[";
  for (let index = 0; index < values.length; index++) json += `${index === 0 ? "" : ","}${quoteRepeated(values[index] as string)}`;
  return `${json}]`;
}

/**
 * JSON of users and source-IP lists by object: the audit filter hands the same (never changed)
 * object to the events of every request of one user, and of one peer, so each is serialized once.
 */
const USER_JSON = new WeakMap<AuditUser, string>();
const IPS_JSON = new WeakMap<readonly string[], string>();

function userJson(user: AuditUser): string {
  let json = USER_JSON.get(user);
  if (json !== undefined) return json;
  // Made once per user object: the fields present, in kube's order (none for a failed authentication's `{}`).
  json = "";
  if (user.username !== undefined) json += `,"username":${quoteRepeated(user.username)}`;
  if (user.uid !== undefined) json += `,"uid":${quoteRepeated(user.uid)}`;
  if (user.groups !== undefined) json += `,"groups":${stringsJson(user.groups)}`;
  if (user.extra !== undefined) json += `,"extra":${JSON.stringify(user.extra)}`;
  json = `{${json.slice(1)}}`;
  USER_JSON.set(user, json);
  return json;
}

function ipsJson(ips: readonly string[]): string {
  let json = IPS_JSON.get(ips);
  if (json === undefined) {
    json = stringsJson(ips);
    IPS_JSON.set(ips, json);
  }
  return json;
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

/** The responseStatus fragment of a status with only its code (most responses), per code. */
const CODE_STATUS_JSON = new Map<number, string>();

function statusFragment(status: AuditResponseStatus): string {
  if (status.status === undefined && status.message === undefined && status.reason === undefined && status.details === undefined) {
    let json = CODE_STATUS_JSON.get(status.code);
    if (json === undefined) {
      json = `,"responseStatus":{"metadata":{},"code":${JSON.stringify(status.code)}}`;
      CODE_STATUS_JSON.set(status.code, json);
    }
    return json;
  }
  return `,"responseStatus":${JSON.stringify(status)}`;
}

/** UTF-8 of the code-only responseStatus fragments, per code. */
const CODE_STATUS_BYTES = new Map<number, Buffer>();

function codeStatusBytes(code: number): Buffer {
  let bytes = CODE_STATUS_BYTES.get(code);
  if (bytes === undefined) {
    bytes = Buffer.from(statusFragment({ metadata: {}, code }));
    CODE_STATUS_BYTES.set(code, bytes);
  }
  return bytes;
}

/** UTF-8 of the stage fragments (a handful of values; emptied if ever full). */
const STAGE_BYTES = new Map<string, Buffer>();

function stageBytes(stage: string): Buffer {
  let bytes = STAGE_BYTES.get(stage);
  if (bytes === undefined) {
    if (STAGE_BYTES.size >= 64) STAGE_BYTES.clear();
    bytes = Buffer.from(quoteRepeated(stage));
    STAGE_BYTES.set(stage, bytes);
  }
  return bytes;
}

/** UTF-8 of the last received-timestamp fragment and of the last stage timestamp (the events of one millisecond share them). */
let lastReceivedBytesOf = "";
let lastReceivedBytes = Buffer.alloc(0);
let lastTimestampBytesOf = "";
let lastTimestampBytes = Buffer.alloc(0);

function receivedBytes(value: string): Buffer {
  const json = receivedJson(value);
  if (json !== lastReceivedBytesOf) {
    lastReceivedBytesOf = json;
    lastReceivedBytes = Buffer.from(json);
  }
  return lastReceivedBytes;
}

function timestampBytes(value: string): Buffer {
  const json = quoteTimestamp(value);
  if (json !== lastTimestampBytesOf) {
    lastTimestampBytesOf = json;
    lastTimestampBytes = Buffer.from(json);
  }
  return lastTimestampBytes;
}

/** UTF-8 of the last annotations fragment (consecutive requests mostly carry the same ones). */
let lastAnnotationsBytesOf = "";
let lastAnnotationsBytes = Buffer.alloc(0);

function annotationsBytes(json: string): Buffer {
  if (json !== lastAnnotationsBytesOf) {
    lastAnnotationsBytesOf = json;
    lastAnnotationsBytes = Buffer.from(json);
  }
  return lastAnnotationsBytes;
}

const CLOSE = Buffer.from("}");
const NO_BYTES = Buffer.alloc(0);

function annotationsJson(annotations: Readonly<Record<string, string>>): string {
  let json = "";
  for (const key of Object.keys(annotations)) json += `${json === "" ? "{" : ","}${quoteRepeated(key)}:${quoteRepeated(annotations[key] as string)}`;
  return json === "" ? "{}" : `${json}}`;
}

/**
 * The last annotations' fragment and the keys and values it was made from: consecutive requests
 * mostly carry the same ones (the authorizer's decision and reason), in new objects each time.
 */
let lastAnnotationKeys: string[] = [];
let lastAnnotationValues: string[] = [];
let lastAnnotationsJson = "";

function annotationsFragment(annotations: Readonly<Record<string, string>>): string {
  let count = 0;
  let same = true;
  for (const key in annotations) {
    if (count >= lastAnnotationKeys.length || lastAnnotationKeys[count] !== key || lastAnnotationValues[count] !== annotations[key]) {
      same = false;
      break;
    }
    count++;
  }
  if (same && count === lastAnnotationKeys.length && lastAnnotationsJson !== "") return lastAnnotationsJson;
  lastAnnotationKeys = Object.keys(annotations);
  lastAnnotationValues = lastAnnotationKeys.map((key) => annotations[key] as string);
  lastAnnotationsJson = `,"annotations":${annotationsJson(annotations)}`;
  return lastAnnotationsJson;
}

/** The text before the auditID for the last apiVersion and level (the same for almost every event). */
let lastPrefixApiVersion = "";
let lastPrefixLevel = "";
let lastPrefix = "";

function headPrefix(apiVersion: string, level: string): string {
  if (lastPrefix === "" || apiVersion !== lastPrefixApiVersion || level !== lastPrefixLevel) {
    lastPrefixApiVersion = apiVersion;
    lastPrefixLevel = level;
    lastPrefix = `{"kind":"Event","apiVersion":${quoteRepeated(apiVersion)},"level":${quoteRepeated(level)},"auditID":`;
  }
  return lastPrefix;
}

/**
 * The middles (requestURI to objectRef) made lately, by request URI, with their UTF-8: clients
 * ask for the same objects again and again (controllers' GETs, heartbeats, lists), each request
 * in new strings and objects, so a middle is reused when every field it covers has the same
 * value as when it was made. Emptied when full.
 */
interface KnownMiddle {
  readonly verb: string;
  readonly user: AuditUser;
  readonly impersonatedUser: AuditUser | undefined;
  readonly sourceIPs: readonly string[] | undefined;
  readonly userAgent: string | undefined;
  readonly ref: AuditObjectRef | undefined;
  readonly text: string;
  readonly bytes: Buffer;
}

const MIDDLES = new Map<string, KnownMiddle>();
const MIDDLES_MAX = 1024;

function sameRef(a: AuditObjectRef | undefined, b: AuditObjectRef | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return (
    a.resource === b.resource &&
    a.namespace === b.namespace &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.apiGroup === b.apiGroup &&
    a.apiVersion === b.apiVersion &&
    a.resourceVersion === b.resourceVersion &&
    a.subresource === b.subresource
  );
}

/** Source IPs by value: a peer's list is one object only while its requests come in a row. */
function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** The event's middle, made or found among the known ones. */
function middleOf(event: AuditEvent): KnownMiddle {
  const known = MIDDLES.get(event.requestURI);
  if (
    known !== undefined &&
    known.verb === event.verb &&
    known.user === event.user &&
    known.impersonatedUser === event.impersonatedUser &&
    sameStrings(known.sourceIPs, event.sourceIPs) &&
    known.userAgent === event.userAgent &&
    sameRef(known.ref, event.objectRef)
  ) {
    return known;
  }
  let text = `,"requestURI":${quoteJson(event.requestURI)},"verb":${quoteRepeated(event.verb)},"user":${userJson(event.user)}`;
  if (event.impersonatedUser !== undefined) text += `,"impersonatedUser":${userJson(event.impersonatedUser)}`;
  if (event.sourceIPs !== undefined) text += `,"sourceIPs":${ipsJson(event.sourceIPs)}`;
  if (event.userAgent !== undefined) text += `,"userAgent":${quoteRepeated(event.userAgent)}`;
  if (event.objectRef !== undefined) text += `,"objectRef":${refJson(event.objectRef)}`;
  const middle: KnownMiddle = {
    verb: event.verb,
    user: event.user,
    impersonatedUser: event.impersonatedUser,
    sourceIPs: event.sourceIPs,
    userAgent: event.userAgent,
    // A copy: the event's ref is the caller's, and only its values matter.
    ref: event.objectRef === undefined ? undefined : { ...event.objectRef },
    text,
    bytes: Buffer.from(text),
  };
  if (MIDDLES.size >= MIDDLES_MAX) MIDDLES.clear();
  MIDDLES.set(event.requestURI, middle);
  return middle;
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
  // The fields the cached parts were made from (compared with ===); `head` is the text up to the
  // stage (apiVersion, level, auditID), `middle` requestURI to objectRef.
  private apiVersion: string | undefined;
  private level: string | undefined;
  private auditID: string | undefined;
  private head = "";
  private made = false;
  private requestURI: string | undefined;
  private verb: string | undefined;
  private user: AuditUser | undefined;
  private impersonatedUser: AuditUser | undefined;
  private sourceIPs: readonly string[] | undefined;
  private userAgent: string | undefined;
  private objectRef: AuditObjectRef | undefined;
  private middle = "";
  private middleBytes: Buffer = NO_BYTES;
  private annotationsOf: Readonly<Record<string, string>> | undefined;
  private annotations = "";
  // Where the head was last written as bytes (encodeInto): a line of `lines` of that generation.
  private headIn: LogLines | undefined;
  private headGeneration = 0;
  private headStart = 0;
  private headEnd = 0;

  encode(event: AuditEvent): string {
    this.prepare(event);
    let json = `${this.head}${quoteRepeated(event.stage)}${this.middle}`;
    if (event.responseStatus !== undefined) json += statusFragment(event.responseStatus);
    // Bodies are the request's own JSON, parsed: serialized as they are.
    if (event.requestObject !== undefined) json += `,"requestObject":${JSON.stringify(event.requestObject)}`;
    if (event.responseObject !== undefined) json += `,"responseObject":${JSON.stringify(event.responseObject)}`;
    json += `${receivedJson(event.requestReceivedTimestamp)}${quoteTimestamp(event.stageTimestamp)}`;
    if (event.annotations !== undefined) json += this.annotations;
    return `${json}}`;
  }

  /**
   * Appends the event's line (the same text as `encode`, then a newline) to `lines` as UTF-8,
   * without making the line as a string: the fragments shared from event to event (stage,
   * code-only status, timestamps, annotations, the middle) are copied as bytes kept with them,
   * and the request's own head is encoded once for its first event and copied from there for
   * the next (while that line is still in the buffer).
   */
  encodeInto(event: AuditEvent, lines: LogLines): void {
    this.prepare(event);
    try {
      const generation = lines.generation;
      if (this.headIn === lines && this.headGeneration === generation) lines.copy(this.headStart, this.headEnd);
      else {
        const start = lines.byteLength;
        lines.text(this.head);
        this.headIn = lines;
        this.headGeneration = generation;
        this.headStart = start;
        this.headEnd = lines.byteLength;
      }
      lines.bytes(stageBytes(event.stage));
      lines.bytes(this.middleBytes);
      const status = event.responseStatus;
      if (status !== undefined) {
        if (status.status === undefined && status.message === undefined && status.reason === undefined && status.details === undefined) {
          lines.bytes(codeStatusBytes(status.code));
        } else lines.text(statusFragment(status));
      }
      if (event.requestObject !== undefined) lines.text(`,"requestObject":${JSON.stringify(event.requestObject)}`);
      if (event.responseObject !== undefined) lines.text(`,"responseObject":${JSON.stringify(event.responseObject)}`);
      lines.bytes(receivedBytes(event.requestReceivedTimestamp));
      lines.bytes(timestampBytes(event.stageTimestamp));
      if (event.annotations !== undefined) lines.bytes(annotationsBytes(this.annotations));
      lines.bytes(CLOSE);
    } catch (error) {
      // Nothing of this line stays, nor is it copied from later.
      lines.abandonLine();
      this.headIn = undefined;
      throw error;
    }
    lines.endLine();
  }

  /** Brings the cached head, middle and annotations up to date with `event`. */
  private prepare(event: AuditEvent): void {
    if (this.head === "" || this.apiVersion !== event.apiVersion || this.level !== event.level || this.auditID !== event.auditID) {
      this.apiVersion = event.apiVersion;
      this.level = event.level;
      this.auditID = event.auditID;
      this.head = `${headPrefix(event.apiVersion, event.level)}${quoteJson(event.auditID)},"stage":`;
      this.headIn = undefined;
    }
    if (!this.sameMiddle(event)) {
      this.made = true;
      this.requestURI = event.requestURI;
      this.verb = event.verb;
      this.user = event.user;
      this.impersonatedUser = event.impersonatedUser;
      this.sourceIPs = event.sourceIPs;
      this.userAgent = event.userAgent;
      this.objectRef = event.objectRef;
      const middle = middleOf(event);
      this.middle = middle.text;
      this.middleBytes = middle.bytes;
    }
    if (event.annotations !== undefined && this.annotationsOf !== event.annotations) {
      this.annotationsOf = event.annotations;
      this.annotations = annotationsFragment(event.annotations);
    }
  }

  private sameMiddle(event: AuditEvent): boolean {
    return (
      this.made &&
      this.requestURI === event.requestURI &&
      this.verb === event.verb &&
      this.user === event.user &&
      this.impersonatedUser === event.impersonatedUser &&
      this.sourceIPs === event.sourceIPs &&
      this.userAgent === event.userAgent &&
      this.objectRef === event.objectRef
    );
  }
}

/** One event's JSON, with nothing to reuse (events handed over without their request's encoder). */
export function encodeEvent(event: AuditEvent): string {
  return new EventJsonEncoder().encode(event);
}
