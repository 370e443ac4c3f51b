import type { RequestInfo } from "./request-info.js";

/** An authenticated identity. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The client's TLS certificate, if it sent one that verified against a trusted CA bundle. */
export interface PeerCertificate {
  readonly commonName: string;
  readonly organizations: readonly string[];
  /**
   * DER of the certificate and the chain TLS verified it with, leaf first. Authenticators use it
   * to tell which CA bundle issued the certificate (client CA vs the proxy's request-header CA).
   */
  readonly chain?: readonly Uint8Array[];
}

/**
 * One HTTP request as the pipeline sees it, independent of HTTP/1.1 vs HTTP/2 and of sockets:
 * tests build these directly and call the handler in process.
 */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /**
   * Header names and values as received, alternating (Node's `rawHeaders`): repeated headers
   * (`Impersonate-Group`, `X-Remote-Group`) keep their values apart. Read through `headerValues`.
   */
  readonly rawHeaders?: readonly string[];
  /** Reads the whole body, refusing more than `limit` bytes with 413. Callable once. */
  readonly body: (limit: number) => Promise<Buffer>;
  readonly peerCertificate: PeerCertificate | undefined;
  /**
   * Why TLS could not verify the client certificate presented (expired, unknown issuer…) against
   * any trusted CA; `peerCertificate` is then undefined. The certificate authenticators reject the
   * request with it, and as in kube's union another credential (a bearer token) may still
   * authenticate it.
   */
  readonly peerCertificateError?: string;
  /** Aborts when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
  /**
   * `signal.aborted`, answered without making the signal where it is made on first need (the
   * listener's). A copy of the request made by spreading it holds the value of that moment: read
   * it on the request a filter was given, not on a copy.
   */
  readonly aborted?: boolean;
  /** The peer's IP address (the audit event's last source IP); absent for in-process requests. */
  readonly remoteAddress?: string;
}

/**
 * `request` with another body reader (a filter that watches what the handler reads): every other
 * field is the request's own, and `signal` and `aborted` are read from it when asked (a spread
 * copy would make the signal at once and freeze `aborted`). A class rather than an object literal
 * with getters, whose per-request closures give every object a V8 map of its own (see the
 * listener's `ListenerRequest`).
 */
class RequestWithBody implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawHeaders: readonly string[] | undefined;
  readonly peerCertificate: PeerCertificate | undefined;
  readonly peerCertificateError: string | undefined;
  readonly remoteAddress: string | undefined;

  constructor(
    private readonly request: ApiRequest,
    readonly body: (limit: number) => Promise<Buffer>,
  ) {
    this.method = request.method;
    this.path = request.path;
    this.query = request.query;
    this.headers = request.headers;
    this.rawHeaders = request.rawHeaders;
    this.peerCertificate = request.peerCertificate;
    this.peerCertificateError = request.peerCertificateError;
    this.remoteAddress = request.remoteAddress;
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  get aborted(): boolean | undefined {
    return this.request.aborted;
  }
}

export function requestWithBody(request: ApiRequest, body: (limit: number) => Promise<Buffer>): ApiRequest {
  return new RequestWithBody(request, body);
}

/**
 * A body is bytes, or a stream of chunks written (and flushed) as they come, with backpressure;
 * a stream may also be a `PushBody` (request/push-body.ts) that writes into the response itself.
 */
export type ResponseBody = string | Uint8Array | AsyncIterable<string | Uint8Array>;

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: ResponseBody;
  /** A stream that lasts until the client or server ends it (watch): cut at once on shutdown. */
  readonly longRunning?: boolean;
  /**
   * A body its maker keeps across requests (aggregated discovery, OpenAPI) with that body gzipped
   * at kube's level, made once by the maker: the compression filter sends it when the client
   * accepts gzip, the body is over the threshold and `of` is still the response's body (a filter
   * that replaced the body, as `?pretty` does, leaves it unused).
   */
  readonly keptGzip?: { readonly of: ResponseBody; gzipped(): Promise<Uint8Array> };
}

/**
 * The context grows stage by stage: `info` is set by the request-info filter, `user` by
 * authentication. Later stages read them through `requireInfo`/`requireUser`.
 */
export interface RequestContext {
  readonly request: ApiRequest;
  info?: RequestInfo;
  user?: UserInfo;
  /** Warnings to send as `Warning: 299 - "..."` headers. */
  readonly warnings: string[];
  /** The request's audit record (set by the audit-id filter): its id and its event's annotations. */
  audit?: AuditRecorder;
  /**
   * Headers every answer to this request carries, whichever stage made the answer (a Status from
   * the error funnel included): `Audit-ID`, flow control's `X-…-PF-*-UID`. Filters add to it
   * (`addResponseHeader`); whoever writes the answer (the listener, the in-process caller) sends
   * them after the answer's own headers, so no stage copies the response and its headers to add
   * one (two copies per filter, on every request).
   */
  responseHeaders?: Record<string, string>;
}

/** Adds a header to every answer of the request (see `RequestContext.responseHeaders`). */
export function addResponseHeader(context: RequestContext, name: string, value: string): void {
  const headers = context.responseHeaders;
  if (headers === undefined) context.responseHeaders = { [name]: value };
  else headers[name] = value;
}

/** An answer's headers with the request's own (`responseHeaders`) after them: a new object only when there are any. */
export function withResponseHeaders(context: RequestContext, response: ApiResponse): ApiResponse {
  const extra = context.responseHeaders;
  if (extra === undefined) return response;
  return { ...response, headers: { ...response.headers, ...extra } };
}

/**
 * Records a warning for the response's `Warning` headers. As kube's recorder, a message already
 * recorded is not added again (an update retried after a conflict warns once).
 */
export function addWarning(context: Pick<RequestContext, "warnings">, message: string): void {
  if (!context.warnings.includes(message)) context.warnings.push(message);
}

/** The recorded warnings as `Warning` header values (`299 - "<text>"`, kube's agent-less form). */
export function warningHeaderValues(context: Pick<RequestContext, "warnings">): string[] {
  return context.warnings.map((text) => headerSafe(`299 - ${JSON.stringify(text)}`));
}

const DEL = /\x7f/g;

/**
 * DEL, the one control character JSON.stringify leaves as is, escaped: header values may not hold
 * it (Node's HTTP/1.1 refuses the whole answer, an HTTP/2 client drops the field). Characters
 * outside ASCII are left to the listener, which sends them as each protocol allows (outgoing.ts).
 */
function headerSafe(value: string): string {
  return value.includes("\x7f") ? value.replace(DEL, "\\u007f") : value;
}

/**
 * A request's audit record. `id` is sent as the `Audit-ID` response header; stages below
 * (authorization, admission plugins and webhooks, deprecated versions) add annotations, which
 * the audit event carries when the policy records the request at Metadata or above.
 */
/** Audit levels an annotation may require (Metadata, the lowest that records annotations, needs no mark). */
export type AnnotationLevel = "Request" | "RequestResponse";

export interface AuditRecorder {
  readonly id: string;
  /**
   * Adds an annotation; a key keeps its first value (a later different value is ignored, as in
   * kube). With `level`, the event carries it only when the request is audited at that level or
   * above (kube's AddAnnotationWithLevel: a webhook's patch is recorded from Request up).
   */
  annotate(key: string, value: string, level?: AnnotationLevel): void;
  /** The annotations so far, in the order they were added, without those above `level` when it is given; the object answered never changes afterwards. */
  annotations(level?: string): Readonly<Record<string, string>> | undefined;
}

export type Handler = (context: RequestContext) => Promise<ApiResponse>;
/** A filter wraps the rest of the chain; filters are listed in execution order. */
export type Filter = (next: Handler) => Handler;

export function chain(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler);
}

/**
 * Every value of a header, in order: from `rawHeaders` when the listener kept them, else the
 * (possibly comma-joined) single value.
 */
export function headerValues(request: ApiRequest, name: string): string[] {
  const lower = name.toLowerCase();
  const raw = request.rawHeaders;
  if (raw === undefined) {
    const value = request.headers[lower];
    return value === undefined ? [] : [value];
  }
  const values: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if ((raw[index] ?? "").toLowerCase() === lower) values.push(raw[index + 1] ?? "");
  }
  return values;
}

export function requireInfo(context: RequestContext): RequestInfo {
  if (context.info === undefined) throw new Error("request info filter did not run");
  return context.info;
}

export function requireUser(context: RequestContext): UserInfo {
  if (context.user === undefined) throw new Error("authentication filter did not run");
  return context.user;
}
