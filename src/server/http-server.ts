import { once } from "node:events";
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import http2, { type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { createSecureContext, type DetailedPeerCertificate, type SecureContext, type SecureContextOptions, type TLSSocket } from "node:tls";
import { DEFAULT_TLS_POLICY, hostNameMatches, type TlsPolicy } from "./tls-policy.js";
import { ApiError } from "../api/errors.js";
import { errorResponse } from "../codec/status.js";
import { isPushBody } from "../request/push-body.js";
import { Http1Outgoing, Http2Outgoing, type Outgoing } from "./outgoing.js";
import { PeerCertificates } from "./peer-certificates.js";
import { requestBody, type RequestBody } from "./request-body.js";
import type { ApiRequest, ApiResponse, Handler, PeerCertificate, RequestContext } from "../request/context.js";

export interface TlsMaterial {
  readonly certificate: string;
  readonly key: string;
  /**
   * PEM bundle client certificates are verified against (every CA authenticators trust: the
   * client CA and the request-header CA); none = no client-cert auth. Which of them issued a
   * certificate is the authenticators' question (`PeerCertificate.chain`).
   */
  readonly clientCa?: string;
  /** `--tls-sni-cert-key`: certificates chosen by the client's SNI name, in flag order (the first match wins). */
  readonly sni?: readonly SniCertificate[];
}

/** A certificate served to clients that ask for one of `names` (exact, or `*.domain` for one label). */
export interface SniCertificate {
  readonly names: readonly string[];
  readonly certificate: string;
  readonly key: string;
}

export interface HttpServerOptions {
  readonly tls: TlsMaterial;
  readonly host: string;
  readonly port: number;
  readonly handler: Handler;
  readonly onError?: (error: unknown) => void;
  /** `--tls-min-version` and `--tls-cipher-suites` (default TLS 1.2, Node's suites). */
  readonly policy?: TlsPolicy;
  /**
   * `--goaway-chance`: the probability that an HTTP/2 request, once answered, closes its
   * connection gracefully (GOAWAY: streams under way finish, the client opens a new connection
   * for its next request, through the load balancer again). Long-running requests (watches) and
   * HTTP/1.1 are left alone. Default 0.
   */
  readonly goawayChance?: number;
  /** The random numbers `goawayChance` is drawn against (tests); default Math.random. */
  readonly random?: () => number;
  /** Slow and idle clients' bounds (see ConnectionLimits); defaults as DEFAULT_CONNECTION_LIMITS. */
  readonly limits?: Partial<ConnectionLimits>;
}

/**
 * What one client may hold of the listener: connections beyond `maxConnections` (0: no cap) are
 * dropped as they arrive; a TLS handshake must finish within `handshakeTimeoutMs`, an HTTP/1.1
 * request's headers within `headerTimeoutMs` (slowloris) and a request body (either protocol)
 * within `bodyTimeoutMs` of the request's start (a body trickled byte by byte).
 */
export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly handshakeTimeoutMs: number;
  readonly headerTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

/**
 * kube's request header allowance on HTTP/1.1: its server's `MaxHeaderBytes` of 1 MiB, which Go
 * reads (request line and headers) up to that plus 4096 bytes before answering 431. Node's
 * default of 16 KiB refused long label selectors and large bearer tokens kube takes. HTTP/2 is
 * left to Node's HTTP/2 library (see docs/architecture.md, "Request header sizes").
 */
export const MAX_HEADER_BYTES = 1 << 20;

/** kube's: Go's server ReadHeaderTimeout of 32 s; the body within the 60 s request timeout; TLS's 10 s handshake. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 0, handshakeTimeoutMs: 10_000, headerTimeoutMs: 32_000, bodyTimeoutMs: 60_000 };

/** A running listener: `stop` refuses new work, lets in-flight requests finish, ends streams. */
export interface HttpServer {
  readonly port: number;
  /** Replaces the certificate, key and client CA bundle for new connections (files reloaded). */
  setTls(tls: TlsMaterial): void;
  stop(graceMs: number): Promise<void>;
}

const peerCache = new WeakMap<object, PeerCertificate | null>();

function firstOrAll(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The verified client certificate of a connection, read once per TLS socket; connections that
 * presented the same verified chain share one `PeerCertificate` (see `PeerCertificates`).
 */
function peerCertificateOf(socket: TLSSocket | undefined, shared: PeerCertificates): PeerCertificate | null | "unverified" {
  if (socket === undefined || typeof socket.getPeerCertificate !== "function") return null;
  const cached = peerCache.get(socket);
  if (cached !== undefined) return cached;
  const certificate = socket.getPeerCertificate(true);
  if (certificate === undefined || certificate === null || Object.keys(certificate).length === 0) {
    peerCache.set(socket, null);
    return null;
  }
  if (!socket.authorized) return "unverified";
  // The chain as TLS verified it, leaf first; the last certificate is its own issuer.
  const links: DetailedPeerCertificate[] = [];
  for (let link: DetailedPeerCertificate | undefined = certificate; link !== undefined && links.length < 10; ) {
    links.push(link);
    const issuer: DetailedPeerCertificate | undefined = link.issuerCertificate;
    link = issuer === undefined || issuer === link || issuer.raw.equals(link.raw) ? undefined : issuer;
  }
  const peer = shared.get(links.map((link) => link.fingerprint256).join(","), () => {
    const subject = certificate.subject as unknown as Record<string, string | string[] | undefined>;
    return { commonName: firstOrAll(subject["CN"])[0] ?? "", organizations: firstOrAll(subject["O"]), chain: links.map((link) => link.raw) };
  });
  peerCache.set(socket, peer);
  return peer;
}

const MAYBE_UNSAFE = /[\\\t\n\r]|(?:^|\/)(?:\.|%2e)/i;

/**
 * Characters WHATWG URL parsing leaves as they are in a path (no percent-encoding, no
 * normalization); the path must not start with "//" (a host).
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
/** A segment URL parsing may resolve ("." or "..", also percent-encoded), in a plain path. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;
/** Printable ASCII but "#": a query URL parsing would encode nothing of that the form decoding would not give back the same. */
const PLAIN_QUERY = /^[!"$-~]*$/;

/**
 * The request target's path and query as `new URL(target, "https://localhost")` gives them
 * (`pathname`, `searchParams`). Paths of plain characters — every path a client sends in practice
 * — are split at the "?" without the URL parser: at one request at a time (kubectl, a controller's
 * GET, the pages of a list) the parser cost ~9 µs of CPU per request with the CPU's caches cold,
 * against ~1 µs for this. Anything else goes through the parser as before.
 */
export function requestTarget(rawUrl: string): { readonly pathname: string; readonly query: URLSearchParams } {
  const mark = rawUrl.indexOf("?");
  const path = mark < 0 ? rawUrl : rawUrl.slice(0, mark);
  const query = mark < 0 ? "" : rawUrl.slice(mark + 1);
  // A query starting with a second "?" goes to the parser: `new URLSearchParams("?a=b")` drops that
  // "?" (its key is "a") where the URL's own query keeps it (key "?a"), as Go's ParseQuery does.
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && (query === "" || (query.charCodeAt(0) !== 0x3f && PLAIN_QUERY.test(query))))
    return { pathname: path, query: new URLSearchParams(query) };
  const url = new URL(rawUrl, "https://localhost");
  return { pathname: url.pathname, query: url.searchParams };
}

/**
 * What in a raw request path URL parsing would rewrite, so that the path served differs from the
 * path sent: `.`/`..` segments (also percent-encoded, or split by a tab or newline the parser
 * drops) and backslashes (read as slashes). Such requests are refused (kube refuses `.` and `..`
 * as names with 400); undefined when the path is taken as sent.
 */
export function unsafePathPart(rawUrl: string): string | undefined {
  const path = rawUrl.split("?", 1)[0] ?? "";
  // Nearly every path has none of it: a backslash, a tab or newline, or a segment starting with
  // "." or "%2e" are each necessary for what follows to find something (one scan, not three).
  if (!MAYBE_UNSAFE.test(path)) return undefined;
  if (path.includes("\\")) return "backslashes";
  for (const segment of path.replace(/[\t\n\r]/g, "").split("/")) {
    const plain = segment.replace(/%2e/gi, ".");
    if (plain === "." || plain === "..") return `"${segment}" path segments`;
  }
  return undefined;
}

/** One secure context per SNI certificate, built when the material is (re)loaded. */
function sniContextsOf(
  tls: TlsMaterial,
  contextOptions: (certificate: string, key: string, clientCa: string | undefined) => SecureContextOptions,
): { readonly names: readonly string[]; readonly context: SecureContext }[] {
  return (tls.sni ?? []).map((entry) => ({ names: entry.names, context: createSecureContext(contextOptions(entry.certificate, entry.key, tls.clientCa)) }));
}

/**
 * A request's abort signal, made on first need: most requests end without anything asking for it,
 * and an AbortController costs a few µs of CPU in Node 20 (its EventTarget). `aborted` answers
 * without making one; `abort` makes it if nothing has yet.
 */
class RequestAbort {
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  abort(): void {
    this.controller ??= new AbortController();
    this.controller.abort();
  }
}

/**
 * The request as the listener hands it to the handler. A class with its getters on the prototype,
 * not an object literal with `get signal()`: a literal's accessors are new closures on every
 * evaluation, which V8 defines through the runtime and gives each object a hidden class of its
 * own; and a hidden class that outlives its request keeps, through the getters' closure, the
 * whole exchange (stream, headers, response) reachable from the old generation, so minor GCs
 * promote it (docs/architecture.md, "Per-request objects and the GC").
 */
class ListenerRequest implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawHeaders: readonly string[];
  readonly body: (limit: number) => Promise<Buffer>;
  readonly remoteAddress: string | undefined;

  constructor(
    exchange: Exchange,
    url: { readonly pathname: string; readonly query: URLSearchParams },
    reader: RequestBody,
    readonly peerCertificate: PeerCertificate | undefined,
    readonly peerCertificateError: string | undefined,
    private readonly abort: RequestAbort,
  ) {
    this.method = exchange.method;
    this.path = url.pathname;
    this.query = url.query;
    this.headers = exchange.headers as Record<string, string | undefined>;
    this.rawHeaders = exchange.rawHeaders;
    this.body = (limit) => reader.read(limit);
    this.remoteAddress = exchange.socket?.remoteAddress;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get aborted(): boolean {
    return this.abort.aborted;
  }
}

/** kube-apiserver's Cache-Control for answers whose handler set none. */
const NO_CACHE_PRIVATE = "no-cache, private";

/**
 * Writes an answer: bytes with their length, or a streamed body chunk by chunk with backpressure,
 * or a pushed body (a watch) that writes into the response itself.
 */
async function writeResponse(
  out: Outgoing,
  result: ApiResponse,
  signal: { readonly aborted: boolean },
  requestHeaders: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(result.headers)) {
    // HTTP/2 forbids connection-specific headers; Node adds chunking itself on HTTP/1.1.
    if (name === "transfer-encoding") continue;
    headers[name] = typeof value === "string" ? value : [...value];
  }
  // The request's own headers (Audit-ID, flow control's), after the answer's: see RequestContext.responseHeaders.
  if (requestHeaders !== undefined) for (const name in requestHeaders) headers[name] = requestHeaders[name];
  // kube's outermost filters mark every answer private to its user (all of them are behind
  // authentication) unless the handler chose otherwise (a hashed OpenAPI document is immutable).
  headers["cache-control"] ??= NO_CACHE_PRIVATE;
  const body = result.body;
  if (typeof body === "string" || body instanceof Uint8Array) {
    headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.length);
    out.head(result.status, headers, false);
    out.end(body);
    return;
  }
  out.head(result.status, headers, true);
  if (isPushBody(body)) {
    // The producer writes as its data comes (a watch: one write per fan-out); it ends on the
    // request's abort signal, which the listener fires when the client goes or on stop.
    try {
      await body.pipeTo(out.sink());
    } finally {
      if (!out.writableEnded) out.end();
    }
    return;
  }
  const iterator = body[Symbol.asyncIterator]();
  let step: IteratorResult<string | Uint8Array> | undefined;
  try {
    step = await iterator.next();
    // One chunk of look-ahead: the last chunk is followed by end() at once, not after waiting for
    // it to drain, so the stream's end goes out with it (on HTTP/2 in the same DATA frame: a page
    // of a paged list ends a turn sooner). Backpressure holds: a chunk that did not fit is drained
    // before the next one is written. The drain is listened for from the write on, as it may come
    // while the next chunk is made.
    while (step.done !== true && !signal.aborted) {
      const room = out.write(step.value) ? undefined : out.drained();
      step = await iterator.next();
      if (step.done !== true && room !== undefined) await room;
    }
  } finally {
    if (step?.done !== true) await iterator.return?.();
    if (!out.writableEnded) out.end();
  }
}

function ignoreChunk(): void {}

/** What the listener reads of a request, whichever protocol carried it. */
interface Exchange {
  readonly method: string;
  /** The request target as sent (path and query). */
  readonly url: string;
  /** Lower-case names; on HTTP/2 with the pseudo-headers (`:method`, `:path`, `:authority`…). */
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  /** The connection's TLS socket: its peer certificate and remote address. */
  readonly socket: TLSSocket | undefined;
}

/** HTTP/1.1 connections already read through the socket's stream (see `guardHttp1Pause`). */
const streamRead = new WeakSet<object>();

/**
 * Called as an HTTP/1.1 request arrives. Node's HTTP/1 server feeds a TLS socket's decrypted
 * bytes straight into its parser, and when a request arrives while the previous response's
 * write has not completed (backpressure, or a write issued from setImmediate whose completion
 * lands after the next read) or behind a pipelined response, it pauses the parser; the TLS
 * layer still hands the parser the rest of the records it decrypted in that read, and the
 * paused parser fails with HPE_PAUSED, which destroys the connection (a keep-alive client sees
 * a reset on its next large request). Under exactly those conditions, before the parser is
 * paused, this moves the connection to the stream path (a 'data' listener is Node's own switch),
 * where pausing the socket holds the bytes until the response drains. The native path stays for
 * every other connection: it is cheaper per read.
 */
function guardHttp1Pause(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  if (streamRead.has(socket)) return;
  const queued = (response as unknown as { socket: Socket | null }).socket === null;
  if (!socket.writableNeedDrain && !queued) return;
  streamRead.add(socket);
  socket.on("data", ignoreChunk);
}

/**
 * Serves the handler over TLS with ALPN `h2` and `http/1.1`. Client certificates are requested
 * (not required) and verified against the client CA; an unverified one makes the request 401.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  /**
   * Requests being served, counted rather than kept in a Set: a long-lived Set that takes and drops
   * an entry per request rehashes into new tables, and V8 keeps each old table (with the requests
   * it held) linked to the next, so once a full GC has moved one to the old generation every
   * later request's work was kept alive through minor GCs (docs/architecture.md, "Per-request
   * objects and the GC"). `stop` waits for the count to reach zero.
   */
  let inFlight = 0;
  let whenIdle: (() => void) | undefined;
  /** Long-running responses (watches): ended at once on stop instead of awaited. */
  const streams = new Set<RequestAbort>();
  let stopping = false;
  const peers = new PeerCertificates();
  const policy = options.policy ?? DEFAULT_TLS_POLICY;
  const goawayChance = options.goawayChance ?? 0;
  const random = options.random ?? Math.random;
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const contextOptions = (certificate: string, key: string, clientCa: string | undefined): SecureContextOptions => ({
    cert: certificate,
    key,
    ca: clientCa,
    minVersion: policy.minVersion,
    ...(policy.ciphers === undefined ? {} : { ciphers: policy.ciphers }),
  });
  let sniContexts = sniContextsOf(options.tls, contextOptions);
  const server = http2.createSecureServer({
    allowHTTP1: true,
    ...contextOptions(options.tls.certificate, options.tls.key, options.tls.clientCa),
    requestCert: options.tls.clientCa !== undefined,
    rejectUnauthorized: false,
    SNICallback: (serverName, callback) => callback(null, sniContexts.find((entry) => entry.names.some((name) => hostNameMatches(name, serverName)))?.context),
    // Streamed lists and watch events must not wait for delayed ACKs (Nagle).
    noDelay: true,
    handshakeTimeout: limits.handshakeTimeoutMs,
  });
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  // The HTTP/1.1 side (Node's parser): headers within the header timeout, the whole request within
  // the body timeout; checked at a tenth of the shorter one (Node's default is every 30 s).
  const http1 = server as unknown as { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number; maxHeaderSize: number };
  http1.maxHeaderSize = MAX_HEADER_BYTES + 4096;
  http1.headersTimeout = limits.headerTimeoutMs;
  http1.requestTimeout = Math.max(limits.bodyTimeoutMs, limits.headerTimeoutMs);
  http1.connectionsCheckingInterval = Math.max(100, Math.min(30_000, Math.floor(Math.min(limits.headerTimeoutMs, limits.bodyTimeoutMs) / 10)));
  /** Serves one request of either protocol; `session` is its HTTP/2 session (GOAWAY), undefined on HTTP/1.x. */
  const serve = (exchange: Exchange, out: Outgoing, body: RequestBody, session: ServerHttp2Session | undefined): void => {
    const controller = new RequestAbort();
    // A request is under way until its handler has finished and its exchange has closed (the
    // answer handed to the connection, or the client gone): `stop` must not cut an answer that
    // was written but not yet sent.
    inFlight += 1;
    let parts = 2;
    const partDone = (): void => {
      if (--parts > 0) return;
      inFlight -= 1;
      if (inFlight === 0) whenIdle?.();
    };
    // Abort only when the client goes away mid-response: aborting finished requests costs a
    // DOMException and an event dispatch each, a measurable share of a GET.
    out.onClose(() => {
      if (!out.writableFinished) controller.abort();
      partDone();
    });
    void (async () => {
      const url = requestTarget(exchange.url);
      const peer = peerCertificateOf(exchange.socket, peers);
      const unsafe = unsafePathPart(exchange.url);
      let result: ApiResponse;
      let context: RequestContext | undefined;
      if (unsafe !== undefined) {
        result = errorResponse(new ApiError(400, "BadRequest", `invalid request path: ${unsafe} are not allowed`));
      } else {
        const apiRequest = new ListenerRequest(
          exchange,
          url,
          body,
          peer === "unverified" || peer === null ? undefined : peer,
          peer === "unverified" ? String(exchange.socket?.authorizationError ?? "not verified") : undefined,
          controller,
        );
        context = { request: apiRequest, warnings: [] };
        result = await options.handler(context);
      }
      if (result.longRunning === true) {
        if (stopping) controller.abort();
        streams.add(controller);
      }
      // kube's probabilistic GOAWAY: decided per request, sent once the answer is written.
      const goaway = goawayChance > 0 && session !== undefined && result.longRunning !== true && random() < goawayChance ? session : undefined;
      await writeResponse(out, result, controller, context?.responseHeaders);
      body.settle();
      if (goaway !== undefined && !goaway.closed && !goaway.destroyed) goaway.close();
    })()
      .catch((error: unknown) => {
        options.onError?.(error);
        if (!out.headersSent) {
          const fallback = errorResponse(error);
          out.head(fallback.status, { "content-type": "application/json", "cache-control": NO_CACHE_PRIVATE }, false);
          out.end(fallback.body);
        } else if (!out.writableEnded) {
          out.end();
        }
        body.settle();
      })
      .finally(() => {
        streams.delete(controller);
        partDone();
      });
  };
  // HTTP/2 through Node's core stream API (see Http2Outgoing), HTTP/1.x through Node's HTTP/1 server.
  const onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]): void => {
    const arrived = Date.now();
    const session = (stream.session ?? undefined) as ServerHttp2Session | undefined;
    const exchange: Exchange = {
      method: String(headers[":method"] ?? ""),
      url: String(headers[":path"] ?? "/"),
      headers,
      rawHeaders,
      socket: session?.socket as TLSSocket | undefined,
    };
    serve(exchange, new Http2Outgoing(stream), requestBody({ kind: "http2", stream, headers }, arrived, limits.bodyTimeoutMs), session);
  };
  const onHttp1Request = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.httpVersionMajor === 2) throw new Error("an HTTP/2 request reached the HTTP/1 handler: Node's compatibility layer was not removed");
    guardHttp1Pause(request, response);
    const arrived = Date.now();
    const exchange: Exchange = {
      method: request.method ?? "GET",
      url: request.url ?? "/",
      headers: request.headers,
      rawHeaders: request.rawHeaders,
      socket: request.socket as TLSSocket,
    };
    serve(exchange, new Http1Outgoing(request, response), requestBody({ kind: "http1", message: request }, arrived, limits.bodyTimeoutMs), undefined);
  };
  server.on("stream", onStream);
  server.on("request", onHttp1Request as unknown as (request: http2.Http2ServerRequest, response: http2.Http2ServerResponse) => void);
  // A 'request' listener makes Node's HTTP/2 server add its compatibility layer as a 'stream'
  // listener (a request/response pair per stream); HTTP/2 streams are served by onStream alone.
  for (const listener of server.listeners("stream")) {
    if (listener !== onStream) server.removeListener("stream", listener as (...args: unknown[]) => void);
  }
  server.on("sessionError", () => {});
  server.on("tlsClientError", () => {});
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const sockets = new Set<Socket>();
  // Every TCP connection, handshaken or not: stop() must be able to end them all.
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.listen(options.port, options.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    setTls(tls) {
      server.setSecureContext(contextOptions(tls.certificate, tls.key, tls.clientCa));
      sniContexts = sniContextsOf(tls, contextOptions);
    },
    async stop(graceMs) {
      if (stopping) return;
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      // Watches end now; ordinary requests get the grace period to finish.
      for (const controller of streams) controller.abort();
      const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (whenIdle = resolve));
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        graceTimer = setTimeout(resolve, graceMs);
        graceTimer.unref();
      });
      await Promise.race([idle, grace]);
      // HTTP/2 sessions close on their own once their last stream's frames are out (close() above):
      // the rest of the grace period lets them, so an answer just written is not cut off.
      const open = [...sessions].filter((session) => !session.destroyed);
      await Promise.race([Promise.all(open.map((session) => once(session, "close").catch(() => undefined))), grace]);
      clearTimeout(graceTimer);
      for (const socket of sockets) socket.destroy();
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
