/**
 * gRPC unary calls over one kept `node:http2` session to one etcd member: the fast path of
 * `EtcdClient` for Range and Txn (the calls every read and write makes). It frames the request
 * itself (five-byte gRPC prefix, `grpc-timeout`), reads the reply's message and `grpc-status`,
 * and nothing else: no resolver, balancer, retries, keepalive or filters. Those stay with the
 * grpc-js channel beside it, which serves every call this path does not take: while the session
 * connects, after it failed (for a second, then it reconnects, to the next endpoint), and every
 * call the session refused before sending it (`unsent`: never reached etcd, so sending it again
 * through grpc-js cannot apply it twice). A call that was sent and lost its stream answers
 * UNAVAILABLE, as grpc-js answers a call on a dropped connection.
 */
import http2 from "node:http2";
import { isIP } from "node:net";
import tls from "node:tls";

/** The fields of grpc-js's ServiceError that `translateError` reads. */
export interface UnaryStatus {
  readonly code: number;
  readonly details: string;
  readonly message: string;
}

export type UnaryResult =
  | { readonly kind: "ok"; readonly message: Buffer }
  | { readonly kind: "status"; readonly status: UnaryStatus }
  /** The call never left this process: the caller may send it another way. */
  | { readonly kind: "unsent" };

export interface H2UnaryOptions {
  /** `http://host:port` or `https://host:port` (all one scheme). */
  readonly endpoints: readonly string[];
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
}

/** gRPC status codes used here (grpc/status.h). */
const DEADLINE_EXCEEDED = 4;
const UNAVAILABLE = 14;
const INTERNAL = 13;
/** How long a failed session keeps the fast path off before the next endpoint is tried. */
const RECONNECT_AFTER_MS = 1000;
/** client-go's HTTP/2 windows: large list pages are not throttled by flow control. */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;
const UNSENT: UnaryResult = { kind: "unsent" };

export class H2Unary {
  private session: http2.ClientHttp2Session | undefined;
  private connected = false;
  private next = 0;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly options: H2UnaryOptions) {}

  /**
   * Sends one request message to `path` (`/etcdserverpb.KV/Txn`) with a deadline. Never rejects:
   * the answer is the reply's message, a gRPC status, or `unsent`.
   */
  call(path: string, message: Buffer, timeoutMs: number): Promise<UnaryResult> {
    const session = this.usable();
    if (session === undefined) return Promise.resolve(UNSENT);
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": grpcTimeout(timeoutMs),
      });
    } catch {
      this.retire(session);
      return Promise.resolve(UNSENT);
    }
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let status: UnaryStatus | undefined;
      let responded = false;
      const timer = setTimeout(() => {
        status ??= { code: DEADLINE_EXCEEDED, details: "Deadline exceeded", message: "4 DEADLINE_EXCEEDED: Deadline exceeded" };
        stream.close(http2.constants.NGHTTP2_CANCEL);
        // A member that stopped answering without closing the connection: grpc-js's keepalive finds those.
        this.retire(session);
      }, timeoutMs);
      stream.on("response", (headers) => {
        responded = true;
        status ??= statusOf(headers, true);
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("trailers", (headers) => {
        status ??= statusOf(headers, false);
      });
      stream.on("error", () => {});
      stream.on("close", () => {
        clearTimeout(timer);
        if (status === undefined && !responded && (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM || stream.id === undefined)) {
          resolve(UNSENT);
          return;
        }
        status ??= unavailable(`stream closed before its status (HTTP/2 code ${stream.rstCode ?? 0})`);
        if (status.code !== 0) {
          resolve({ kind: "status", status });
          return;
        }
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
        if (body[0] !== 0 || length + 5 !== body.length) {
          resolve({ kind: "status", status: { code: INTERNAL, details: "malformed reply message", message: "13 INTERNAL: malformed reply message" } });
          return;
        }
        resolve({ kind: "ok", message: body.subarray(5) });
      });
      stream.end(frame);
    });
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  /** The connected session, starting a connection when there is none (calls meanwhile go to grpc-js). */
  private usable(): http2.ClientHttp2Session | undefined {
    const session = this.session;
    if (session !== undefined) return this.connected && !session.closed && !session.destroyed ? session : undefined;
    if (this.closed || Date.now() < this.retryAt) return undefined;
    this.connect();
    return undefined;
  }

  private connect(): void {
    const endpoints = this.options.endpoints;
    const url = new URL(endpoints[this.next % endpoints.length] as string);
    this.next++;
    const secure = url.protocol === "https:";
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port === "" ? "2379" : url.port);
    const keys = this.options.tls;
    const session = http2.connect(url.origin, {
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      // Our own TLS socket: node:http2 would send an IP literal as the server name (SNI), which RFC 6066 forbids.
      ...(secure
        ? {
            createConnection: () =>
              tls.connect({
                host,
                port,
                ALPNProtocols: ["h2"],
                ...(keys?.ca === undefined ? {} : { ca: keys.ca }),
                ...(keys?.cert === undefined ? {} : { cert: keys.cert }),
                ...(keys?.key === undefined ? {} : { key: keys.key }),
                ...(isIP(host) === 0 ? { servername: host } : {}),
              }),
          }
        : {}),
    });
    this.session = session;
    this.connected = false;
    session.on("connect", () => {
      if (this.session !== session) return;
      this.connected = true;
      session.setLocalWindowSize(CONNECTION_WINDOW);
    });
    session.on("error", () => this.retire(session));
    session.on("goaway", () => this.retire(session));
    session.on("close", () => this.retire(session));
    session.unref();
  }

  /** Stops sending on `session` (its streams in flight finish or fail) and waits before reconnecting. */
  private retire(session: http2.ClientHttp2Session): void {
    if (this.session !== session) return;
    this.session = undefined;
    this.connected = false;
    this.retryAt = Date.now() + RECONNECT_AFTER_MS;
    if (!session.closed) session.close();
  }
}

/** gRPC's timeout header: at most eight digits, so long deadlines go in seconds or hours. */
export function grpcTimeout(timeoutMs: number): string {
  const ms = Math.max(1, Math.ceil(timeoutMs));
  if (ms < 1e8) return `${ms}m`;
  const seconds = Math.ceil(ms / 1000);
  return seconds < 1e8 ? `${seconds}S` : `${Math.min(99_999_999, Math.ceil(seconds / 3600))}H`;
}

function unavailable(details: string): UnaryStatus {
  return { code: UNAVAILABLE, details, message: `14 UNAVAILABLE: ${details}` };
}

/** The call's status from its trailers, or from its headers when etcd answered with trailers only; undefined when not there. */
function statusOf(headers: http2.IncomingHttpHeaders, inHeaders: boolean): UnaryStatus | undefined {
  const code = headers["grpc-status"];
  if (typeof code !== "string") {
    const http = headers[":status"];
    if (inHeaders && http !== undefined && Number(http) !== 200) return unavailable(`HTTP status ${String(http)}`);
    return inHeaders ? undefined : unavailable("trailers without grpc-status");
  }
  const raw = headers["grpc-message"];
  const details = typeof raw === "string" ? percentDecoded(raw) : "";
  return { code: Number(code), details, message: `${code} ${details}` };
}

/** grpc-message is percent-encoded UTF-8. */
function percentDecoded(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
