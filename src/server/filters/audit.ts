import { ApiError, internalError } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import { yaml } from "../../util/yaml.js";
import { isPushBody, type PushBody } from "../../request/push-body.js";
import {
  headerValues,
  requireInfo,
  requireUser,
  requestWithBody,
  type ApiResponse,
  type Filter,
  type RequestContext,
  type ResponseBody,
  type UserInfo,
} from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";
import {
  AuditStoreError,
  microTime,
  type AuditBackend,
  type AuditEvent,
  type AuditObjectRef,
  type AuditResponseStatus,
  type AuditUser,
} from "../audit/event.js";
import { EventJsonEncoder } from "../audit/event-json.js";
import { evaluatePolicy, levelAtLeast, type AuditDecision, type AuditPolicy, type AuditStage } from "../audit/policy.js";
import type { AuditMetrics } from "../metrics/audit-metrics.js";

export interface AuditFilterOptions {
  readonly policy: AuditPolicy;
  readonly backend: AuditBackend;
  /** `audit.<apiDomain>/v1`. */
  readonly apiVersion: string;
  readonly metrics?: AuditMetrics;
  readonly now?: () => number;
  /**
   * The profile's protobuf media types and decoder: protobuf request and response bodies are
   * recorded as JSON (kube encodes the decoded object), and name a create's objectRef.
   */
  readonly protobuf?: { readonly mediaTypes: readonly string[]; decode(bytes: Uint8Array): unknown };
}

/** The media type of a Content-Type header, without parameters, lower-case. */
function mediaTypeOf(contentType: string | readonly string[] | undefined): string {
  if (typeof contentType !== "string") return "";
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** A body as a value: JSON, or protobuf decoded when its media type is one of the profile's; undefined when neither reads. */
function bodyValue(bytes: Buffer | string | Uint8Array | undefined, contentType: string | readonly string[] | undefined, options: AuditFilterOptions): unknown {
  if (bytes === undefined) return undefined;
  const protobuf = options.protobuf;
  if (protobuf !== undefined && typeof bytes !== "string" && protobuf.mediaTypes.includes(mediaTypeOf(contentType))) {
    try {
      return protobuf.decode(bytes);
    } catch {
      return undefined;
    }
  }
  const parsed = parseJson(bytes);
  if (parsed !== undefined) return parsed;
  // YAML bodies (a create sent as application/yaml, a server-side apply's apply-patch+yaml): kube records the decoded object as JSON.
  const mediaType = mediaTypeOf(contentType);
  if (mediaType !== "application/yaml" && mediaType !== "application/apply-patch+yaml") return undefined;
  try {
    const value: unknown = yaml().parse(typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8"));
    return value === null ? undefined : value;
  } catch {
    return undefined;
  }
}

/** Verbs whose request body the event records: objects, patches, and a delete's DeleteOptions (kube records the options a delete was sent). */
const WRITES = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/**
 * The audited form of users seen lately, by name: a user's requests share one (never changed)
 * object, whose JSON the log's encoder then makes once. Emptied when full.
 */
const AUDITED_USERS = new Map<string, { readonly user: UserInfo; readonly audited: AuditUser }>();
const AUDITED_USERS_MAX = 1024;

/** Same name, uid, groups (in order) and extra (the same object): authenticators make a new UserInfo per request. */
function sameUser(a: UserInfo, b: UserInfo): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.uid !== b.uid || a.extra !== b.extra || a.groups.length !== b.groups.length) return false;
  for (let index = 0; index < a.groups.length; index++) if (a.groups[index] !== b.groups[index]) return false;
  return true;
}

function auditUser(user: UserInfo): AuditUser {
  const seen = AUDITED_USERS.get(user.name);
  if (seen !== undefined && sameUser(seen.user, user)) return seen.audited;
  // Fields set one by one in kube's order (username, uid, groups, extra), empty ones left out.
  const audited: { -readonly [K in keyof AuditUser]: AuditUser[K] } = { username: user.name };
  if (user.uid !== undefined && user.uid !== "") audited.uid = user.uid;
  // A copy: the cached object must not change if the caller's array later does.
  if (user.groups.length !== 0) audited.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length !== 0) audited.extra = user.extra;
  if (AUDITED_USERS.size >= AUDITED_USERS_MAX) AUDITED_USERS.clear();
  AUDITED_USERS.set(user.name, { user: { ...user, groups: audited.groups ?? [] }, audited });
  return audited;
}

/** The peer seen last and its source IPs: one connection's requests share the list (events never change it). */
let lastPeer: { readonly address: string | undefined; readonly ips: readonly string[] } = { address: undefined, ips: [] };

/** kube's source IPs: the X-Forwarded-For chain, then X-Real-Ip, then the peer, each once. */
function sourceIps(context: RequestContext): readonly string[] {
  const headers = context.request.headers;
  if (headers["x-forwarded-for"] === undefined && headers["x-real-ip"] === undefined) {
    // Only the peer (most requests): its list is made once per peer address in a row.
    const address = context.request.remoteAddress;
    if (address !== lastPeer.address) lastPeer = { address, ips: address === undefined ? [] : peerIps(address) };
    return lastPeer.ips;
  }
  return peerIps(undefined, context);
}

function peerIps(address: string | undefined, context?: RequestContext): string[] {
  const ips: string[] = [];
  const add = (ip: string): void => {
    const trimmed = ip.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
    if (trimmed !== "" && !ips.includes(trimmed)) ips.push(trimmed);
  };
  if (context !== undefined) {
    for (const value of headerValues(context.request, "x-forwarded-for")) for (const ip of value.split(",")) add(ip);
    for (const value of headerValues(context.request, "x-real-ip")) add(value);
    address = context.request.remoteAddress;
  }
  if (address !== undefined) add(address);
  return ips;
}

function objectRefOf(info: RequestInfo): AuditObjectRef | undefined {
  if (info.kind !== "resource") return undefined;
  // orderedRef's result, made without the intermediate object (one per audited request).
  const ref: AuditObjectRef = {};
  if (info.resource) ref.resource = info.resource;
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  if (info.group) ref.apiGroup = info.group;
  ref.apiVersion = info.version ?? "";
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

/** An objectRef with kube's field order, empty fields left out (apiVersion is kept, as kube writes it for the core group too). */
function orderedRef(fields: AuditObjectRef): AuditObjectRef {
  const ref: AuditObjectRef = {};
  if (fields.resource) ref.resource = fields.resource;
  if (fields.namespace) ref.namespace = fields.namespace;
  if (fields.name) ref.name = fields.name;
  if (fields.uid) ref.uid = fields.uid;
  if (fields.apiGroup) ref.apiGroup = fields.apiGroup;
  ref.apiVersion = fields.apiVersion ?? "";
  if (fields.resourceVersion) ref.resourceVersion = fields.resourceVersion;
  if (fields.subresource) ref.subresource = fields.subresource;
  return ref;
}

function parseJson(bytes: Buffer | string | Uint8Array | undefined): unknown {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}

function withoutManagedFields(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  if (isPlainObject(copy["metadata"]) && "managedFields" in copy["metadata"]) {
    const { managedFields: _dropped, ...metadata } = copy["metadata"];
    copy["metadata"] = metadata;
  }
  if (Array.isArray(copy["items"])) copy["items"] = copy["items"].map(withoutManagedFields);
  return copy;
}

function statusOfError(error: unknown): AuditResponseStatus {
  if (error instanceof ApiError) return { metadata: {}, status: "Failure", message: error.message, reason: error.reason, code: error.code };
  return { metadata: {}, status: "Failure", message: "an internal error occurred", reason: "InternalError", code: 500 };
}

/** `{ metadata: {}, code }` per code: most responses' status, shared by their events (which never change it). */
const CODE_ONLY = new Map<number, AuditResponseStatus>();

function codeOnly(code: number): AuditResponseStatus {
  let status = CODE_ONLY.get(code);
  if (status === undefined) {
    status = { metadata: {}, code };
    CODE_ONLY.set(code, status);
  }
  return status;
}

function statusOfResponse(response: ApiResponse): AuditResponseStatus {
  if (response.status < 400 || typeof response.body !== "string") return codeOnly(response.status);
  const body = parseJson(response.body);
  if (!isPlainObject(body) || body["kind"] !== "Status") return codeOnly(response.status);
  const text = (key: string): string | undefined => (typeof body[key] === "string" && body[key] !== "" ? (body[key] as string) : undefined);
  const status = text("status");
  const message = text("message");
  const reason = text("reason");
  return {
    metadata: {},
    ...(status === undefined ? {} : { status }),
    ...(message === undefined ? {} : { message }),
    ...(reason === undefined ? {} : { reason }),
    code: response.status,
  };
}

/** Calls `done` once the stream has ended (or been abandoned), with its bytes when `collect`. */
function observeStream(body: Exclude<ResponseBody, string | Uint8Array>, collect: boolean, done: (bytes: Buffer | undefined) => void): ResponseBody {
  const chunks: Buffer[] = [];
  const keep = (chunk: string | Uint8Array): void => {
    if (collect) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  };
  const finish = (): void => done(collect ? Buffer.concat(chunks) : undefined);
  async function* iterate(): AsyncGenerator<string | Uint8Array> {
    try {
      for await (const chunk of body) {
        keep(chunk);
        yield chunk;
      }
    } finally {
      finish();
    }
  }
  if (!isPushBody(body)) return iterate();
  const pushed: PushBody = {
    async pipeTo(sink) {
      try {
        const tee = {
          write: (chunk: Uint8Array): boolean => {
            keep(chunk);
            return sink.write(chunk);
          },
          onDrain: (listener: () => void) => sink.onDrain(listener),
        };
        await body.pipeTo(collect ? tee : sink);
      } finally {
        finish();
      }
    },
    [Symbol.asyncIterator]: () => iterate() as AsyncIterator<Uint8Array>,
  };
  return pushed;
}

/**
 * Audit (`--audit-policy-file`): after authentication, the policy's first matching rule sets the
 * request's level; above None an event goes to the backend for each stage not omitted:
 * RequestReceived on arrival, ResponseStarted when a long-running response (watch) starts,
 * ResponseComplete when the response is done (streams: when they end), Panic when the handler
 * failed with an unexpected error. Request bodies are recorded from Request, responses at
 * RequestResponse; annotations (authorization, admission, deprecation) at Metadata and above.
 * The event's user is the authenticated one; an impersonated identity is `impersonatedUser`.
 */
export function auditFilter(options: AuditFilterOptions): Filter {
  const now = options.now ?? Date.now;
  return (next) => async (context) => {
    const info = requireInfo(context);
    const user = requireUser(context);
    const decision: AuditDecision = evaluatePolicy(options.policy, user, info, info.verb);
    options.metrics?.requestLevel(decision.level);
    if (decision.level === "None") return next(context);
    const request = context.request;
    const received = now();
    const query = request.query.toString();
    const requestURI = query === "" ? request.path : `${request.path}?${query}`;
    // Shared by every event of the request (events are never changed once handed over): made once.
    // A create's name is known only once its body is read: `settle` then replaces the objectRef.
    let objectRef = objectRefOf(info);
    const userAgent = request.headers["user-agent"];
    const ips = sourceIps(context);
    const audited = auditUser(user);
    const receivedTimestamp = microTime(received);
    // The request's events share most fields: the log's JSON of them is made once, by this encoder.
    const encoder = new EventJsonEncoder();
    let requestObject: unknown;
    let impersonated: AuditUser | undefined;
    /** Hands one event to the backend: a promise when a blocking webhook is to be waited for (see AuditBackend). */
    const emit = (stage: AuditStage, status: AuditResponseStatus | undefined, responseObject?: unknown): undefined | Promise<void> => {
      if (decision.omitStages.has(stage)) return undefined;
      const annotations = context.audit?.annotations(decision.level);
      // Every field always set, in kube's order, absent ones as undefined (which JSON leaves out):
      // every event has one shape, so the encoder's reads of it stay fast.
      const event: AuditEvent = {
        kind: "Event",
        apiVersion: options.apiVersion,
        level: decision.level,
        auditID: context.audit?.id ?? "",
        stage,
        requestURI,
        verb: info.verb,
        user: audited,
        impersonatedUser: impersonated,
        sourceIPs: ips.length === 0 ? undefined : ips,
        userAgent,
        objectRef,
        responseStatus: status,
        requestObject,
        responseObject,
        requestReceivedTimestamp: receivedTimestamp,
        stageTimestamp: microTime(now()),
        // The recorder's answer is a snapshot (later annotations go to a copy): each event gets them as they are now.
        annotations,
      };
      options.metrics?.eventsProduced(1);
      return options.backend.processEvents([event], encoder);
    };
    try {
      const received = emit("RequestReceived", undefined);
      if (received !== undefined) await received;
    } catch (error) {
      // blocking-strict (log or webhook): a request whose arrival cannot be recorded is not served (kube's 500).
      if (error instanceof AuditStoreError) throw internalError("failed to store audit event", error);
      throw error;
    }

    // Writes keep their body: the name of a create, and the request object from level Request.
    let body: Buffer | undefined;
    const inner: RequestContext =
      info.kind === "resource" && WRITES.has(info.verb)
        ? {
            ...context,
            request: requestWithBody(request, async (limit) => {
              body = await request.body(limit);
              return body;
            }),
          }
        : context;
    const settle = (): void => {
      if (inner !== context) context.user = inner.user;
      if (inner.user !== undefined && inner.user !== user) impersonated = auditUser(inner.user);
      if (body === undefined) return;
      const parsed = bodyValue(body, request.headers["content-type"], options);
      if (levelAtLeast(decision.level, "Request")) requestObject = decision.omitManagedFields ? withoutManagedFields(parsed) : parsed;
      const metadata = isPlainObject(parsed) ? parsed["metadata"] : undefined;
      if (objectRef !== undefined && isPlainObject(metadata)) {
        const filled: AuditObjectRef = { ...objectRef };
        for (const key of ["name", "namespace", "uid", "resourceVersion"] as const) {
          const value = metadata[key];
          if (filled[key] === undefined && typeof value === "string" && value !== "") filled[key] = value;
        }
        // A new object: the RequestReceived event already handed over keeps the ref it had.
        objectRef = orderedRef(filled);
      }
    };
    let response: ApiResponse;
    try {
      response = await next(inner);
    } catch (error) {
      settle();
      await delivered(emit(error instanceof ApiError ? "ResponseComplete" : "Panic", statusOfError(error)));
      throw error;
    }
    settle();
    const status = statusOfResponse(response);
    const collect = levelAtLeast(decision.level, "RequestResponse") && response.longRunning !== true;
    const responseObjectOf = (bytes: Buffer | string | Uint8Array | undefined): unknown => {
      if (!collect) return undefined;
      const contentType = response.headers["content-type"];
      if (typeof contentType !== "string") return undefined;
      const parsed = contentType.startsWith("application/json")
        ? parseJson(bytes)
        : options.protobuf === undefined
          ? undefined
          : bodyValue(bytes, contentType, options);
      return decision.omitManagedFields ? withoutManagedFields(parsed) : parsed;
    };
    if (typeof response.body === "string" || response.body instanceof Uint8Array) {
      // A blocking webhook has the event before the client has the answer, as in kube.
      const completed = emit("ResponseComplete", status, responseObjectOf(response.body));
      if (completed !== undefined) await delivered(completed);
      return response;
    }
    if (response.longRunning === true) unwaited(emit("ResponseStarted", status));
    return {
      ...response,
      body: observeStream(response.body, collect, (bytes) => unwaited(emit("ResponseComplete", status, responseObjectOf(bytes)))),
    };
  };
}

/**
 * Waits for an event's delivery past the request's start: only a RequestReceived event's failure
 * changes the answer (blocking-strict), so later stages' outcomes are waited for, never thrown.
 */
async function delivered(pending: undefined | Promise<void>): Promise<void> {
  if (pending !== undefined) await pending.catch(() => {});
}

/** A delivery nothing waits for (a streamed answer's events): its outcome was counted by the backend. */
function unwaited(pending: undefined | Promise<void>): void {
  pending?.catch(() => {});
}

/** The user of a request that failed authentication: kube's event shows it as `{}`. */
const UNAUTHENTICATED: AuditUser = {};

/** kube's note on a failed authentication: the credentials tried (basic, bearer, x509), or none. */
function authenticationMethods(context: RequestContext): string {
  const methods: string[] = [];
  const authorization = (context.request.headers["authorization"] ?? "").trim();
  const parts = authorization.split(" ");
  if (parts[0]?.toLowerCase() === "basic" && parts.length > 1) methods.push("basic");
  if (parts.length > 1 && parts[0]?.toLowerCase() === "bearer") methods.push("bearer");
  if (context.request.peerCertificate !== undefined || context.request.peerCertificateError !== undefined) methods.push("x509");
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(", ")}` : "Authentication failed, no credentials provided";
}

/**
 * kube's failed-authentication audit: a request answered 401 by authentication is judged by the
 * policy without a user (rules naming users or groups pass it by) and, unless its level is None
 * or the stage is omitted, gets one ResponseStarted event with user `{}` and a status naming the
 * credentials tried. The authenticate filter calls it just before answering 401.
 */
export function failedAuthenticationAudit(options: AuditFilterOptions): (context: RequestContext) => void {
  const now = options.now ?? Date.now;
  return (context) => {
    const info = requireInfo(context);
    const decision = evaluatePolicy(options.policy, undefined, info, info.verb);
    options.metrics?.requestLevel(decision.level);
    if (decision.level === "None" || decision.omitStages.has("ResponseStarted")) return;
    const request = context.request;
    const query = request.query.toString();
    const ips = sourceIps(context);
    const timestamp = microTime(now());
    const event: AuditEvent = {
      kind: "Event",
      apiVersion: options.apiVersion,
      level: decision.level,
      auditID: context.audit?.id ?? "",
      stage: "ResponseStarted",
      requestURI: query === "" ? request.path : `${request.path}?${query}`,
      verb: info.verb,
      user: UNAUTHENTICATED,
      impersonatedUser: undefined,
      sourceIPs: ips.length === 0 ? undefined : ips,
      userAgent: request.headers["user-agent"],
      objectRef: objectRefOf(info),
      responseStatus: { metadata: {}, message: authenticationMethods(context), code: 401 },
      requestObject: undefined,
      responseObject: undefined,
      requestReceivedTimestamp: timestamp,
      stageTimestamp: timestamp,
      annotations: context.audit?.annotations(decision.level),
    };
    try {
      // Not waited for: the 401 is answered at once.
      unwaited(options.backend.processEvents([event]));
      options.metrics?.eventsProduced(1);
    } catch {
      // blocking-strict refuses only unstored RequestReceived events: the 401 is answered whatever happens here.
    }
  };
}
