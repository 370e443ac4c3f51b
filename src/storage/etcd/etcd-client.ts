/**
 * A small etcd v3 client over @grpc/grpc-js: the KV calls with a deadline each, and watch
 * streams. Several endpoints are balanced round-robin over one channel; a member that goes
 * away is left out until it answers again, so a call fails over instead of waiting.
 */
import type * as grpc from "@grpc/grpc-js";
import { lazyRequire } from "../../util/lazy-require.js";
import { StorageError } from "../errors.js";
import { H2Unary, type UnaryStatus } from "./h2-unary.js";
import { literalNewName } from "./h2-wire.js";
import { RANGE_REQUEST, RANGE_RESPONSE, TXN_REQUEST, TXN_RESPONSE, WATCH_RESPONSE } from "./etcd-wire.js";
import {
  type CompactionRequest,
  type CompactionResponse,
  type MessageCodec,
  messageCodec,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
  type WatchRequest,
  type StatusResponse,
  type WatchResponse,
} from "./etcd-api.js";

/** Client certificate and CA for mutual TLS (PEM). */
export interface EtcdTls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface EtcdClientOptions {
  /** `http://host:port` or `https://host:port`, all with the same scheme. */
  readonly endpoints: readonly string[];
  /** Required for https endpoints (a missing CA means the system roots). */
  readonly tls?: EtcdTls;
  /** Deadline of every unary call (default 10 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Range and Txn over one kept HTTP/2 connection framed by hand (`h2-unary.ts`) instead of grpc-js's call
   * stack, grpc-js serving them whenever that session is not there (default true).
   */
  readonly directUnary?: boolean;
}

/** What a watch stream's owner hears (from the hand-framed connection or from grpc-js alike). */
export interface WatchHandlers {
  response(response: WatchResponse): void;
  /** The stream failed (a gRPC status: grpc-js's ServiceError, or the connection's own). */
  error(status: UnaryStatus): void;
  /** The peer ended the stream without an error. */
  end(): void;
}

/** A watch stream's sending side: create and progress requests, and cancelling it. */
export interface WatchChannel {
  send(request: WatchRequest): void;
  cancel(): void;
}

/** etcd's `hasleader` metadata: a member that loses its leader ends the watch instead of going silent. */
const HAS_LEADER = literalNewName("hasleader", "true");
/** How long a watch being opened waits for the hand-framed connection while it is being made. */
const DIRECT_WATCH_WAIT_MS = 250;

/** gRPC, loaded when the first client is made (a server on another backend never loads it). */
export const grpcLibrary = lazyRequire<typeof grpc>("@grpc/grpc-js");

/** Range, Txn and watch responses (every write's and every event's path) by hand (`etcd-wire.ts`), the rest through protobufjs. */
const CODECS = {
  rangeRequest: RANGE_REQUEST,
  rangeResponse: RANGE_RESPONSE,
  txnRequest: TXN_REQUEST,
  txnResponse: TXN_RESPONSE,
  compactionRequest: messageCodec<CompactionRequest>("etcdserverpb.CompactionRequest"),
  compactionResponse: messageCodec<CompactionResponse>("etcdserverpb.CompactionResponse"),
  watchRequest: messageCodec<WatchRequest>("etcdserverpb.WatchRequest"),
  watchResponse: WATCH_RESPONSE,
  statusRequest: messageCodec<Record<string, never>>("etcdserverpb.StatusRequest"),
  statusResponse: messageCodec<StatusResponse>("etcdserverpb.StatusResponse"),
};

/** etcd's error texts (rpctypes) that map onto storage errors. */
const COMPACTED = "required revision has been compacted";
const FUTURE = "required revision is a future revision";

export class EtcdClient {
  private readonly client: grpc.Client;
  private readonly channel: ReturnType<grpc.Client["getChannel"]>;
  private readonly timeoutMs: number;
  /** The fast path of Range and Txn (see `directUnary`). */
  private readonly direct: H2Unary | undefined;

  constructor(options: EtcdClientOptions) {
    const { target, secure, host } = channelTarget(options.endpoints);
    const library = grpcLibrary();
    const credentials = secure
      ? library.credentials.createSsl(options.tls?.ca ?? null, options.tls?.key ?? null, options.tls?.cert ?? null)
      : library.credentials.createInsecure();
    this.client = new library.Client(target, credentials, {
      "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
      "grpc.ssl_target_name_override": host,
      "grpc.default_authority": host,
      "grpc.keepalive_time_ms": 10_000,
      "grpc.keepalive_timeout_ms": 2_000,
      "grpc.max_receive_message_length": 2 * 1024 * 1024 * 1024 - 1,
      // Reconnect quickly after a member restarts: tests and operators both wait on it.
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 1_000,
    });
    this.channel = this.client.getChannel();
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.direct =
      options.directUnary === false ? undefined : new H2Unary({ endpoints: options.endpoints, ...(options.tls === undefined ? {} : { tls: options.tls }) });
  }

  /** A Range; `timeoutMs` overrides the client's deadline (health checks). */
  range(request: RangeRequest, key: string, timeoutMs?: number): Promise<RangeResponse> {
    return this.directOrChannel("/etcdserverpb.KV/Range", CODECS.rangeRequest, CODECS.rangeResponse, request, key, timeoutMs);
  }

  txn(request: TxnRequest, key: string): Promise<TxnResponse> {
    return this.directOrChannel("/etcdserverpb.KV/Txn", CODECS.txnRequest, CODECS.txnResponse, request, key);
  }

  compact(request: CompactionRequest): Promise<CompactionResponse> {
    return this.unary("/etcdserverpb.KV/Compact", CODECS.compactionRequest, CODECS.compactionResponse, request, "");
  }

  /** Maintenance.Status of the member the channel picks (its database size for `apiserver_storage_size_bytes`). */
  status(): Promise<StatusResponse> {
    return this.unary("/etcdserverpb.Maintenance/Status", CODECS.statusRequest, CODECS.statusResponse, {}, "");
  }

  /** A grpc-js watch stream (the etcd bench's raw watcher); the caller writes create/progress/cancel requests and ends it. */
  watchStream(metadata: grpc.Metadata): grpc.ClientDuplexStream<WatchRequest, WatchResponse> {
    return this.client.makeBidiStreamRequest("/etcdserverpb.Watch/Watch", CODECS.watchRequest.serialize, CODECS.watchResponse.deserialize, metadata);
  }

  /**
   * Opens a watch stream (with `hasleader`): on the hand-framed connection when it is ready (after
   * waiting briefly for one being made), else through grpc-js. The caller sends the create and
   * progress requests and cancels it; the handlers hear each response and the stream's end.
   */
  async watch(handlers: WatchHandlers): Promise<WatchChannel> {
    const direct = this.direct;
    if (direct !== undefined) {
      await direct.whenReady(DIRECT_WATCH_WAIT_MS);
      let channel: WatchChannel | undefined;
      const stream = direct.stream("/etcdserverpb.Watch/Watch", HAS_LEADER, {
        message: (bytes) => {
          let response: WatchResponse;
          try {
            response = CODECS.watchResponse.deserialize(bytes);
          } catch {
            channel?.cancel();
            handlers.error({ code: 13, details: "the watch response did not decode", message: "13 INTERNAL: the watch response did not decode" });
            return;
          }
          handlers.response(response);
        },
        end: (status) => {
          if (status.code === 0) handlers.end();
          else handlers.error(status);
        },
      });
      if (stream !== undefined) {
        channel = { send: (request) => stream.send(CODECS.watchRequest.serialize(request)), cancel: () => stream.cancel() };
        return channel;
      }
    }
    const metadata = new (grpcLibrary().Metadata)();
    metadata.set("hasleader", "true");
    const stream = this.client.makeBidiStreamRequest("/etcdserverpb.Watch/Watch", CODECS.watchRequest.serialize, CODECS.watchResponse.deserialize, metadata);
    stream.on("data", (response: WatchResponse) => handlers.response(response));
    stream.on("error", (error: grpc.ServiceError) => handlers.error(error));
    stream.on("end", () => handlers.end());
    return { send: (request) => stream.write(request), cancel: () => stream.cancel() };
  }

  close(): void {
    this.direct?.close();
    this.client.close();
  }

  /**
   * A Range or Txn on the kept HTTP/2 connection when there is one, else (and for every call that
   * session did not send) on the grpc-js channel. The reply is decoded and errors translated alike.
   */
  private directOrChannel<Request, Response>(
    method: string,
    requestCodec: MessageCodec<Request>,
    responseCodec: MessageCodec<Response>,
    request: Request,
    key: string,
    timeoutMs = this.timeoutMs,
  ): Promise<Response> {
    if (this.direct === undefined) return this.unary(method, requestCodec, responseCodec, request, key, timeoutMs);
    let message: Buffer;
    try {
      message = requestCodec.serialize(request);
    } catch (error) {
      return Promise.reject(new StorageError("Unavailable", key, { message: `etcd ${method}: the request did not encode`, cause: error }));
    }
    const started = Date.now();
    return this.direct.call(method, message, timeoutMs).then((result) => {
      switch (result.kind) {
        case "unsent":
          return this.unary(method, requestCodec, responseCodec, request, key, Math.max(1, timeoutMs - (Date.now() - started)));
        case "status":
          throw translateError(Object.assign(new Error(result.status.message), result.status), key);
        case "ok":
          try {
            return responseCodec.deserialize(result.message);
          } catch (error) {
            throw new StorageError("Unavailable", key, { message: `etcd ${method}: the response did not decode`, cause: error });
          }
      }
    });
  }

  /**
   * One unary call on the channel's own call object, not through grpc-js's Client wrapper: the
   * wrapper adds, per call, an interceptor chain, an event emitter and an Error for the caller's
   * stack (~30 µs of CPU together, measured on the create path). The channel still does name
   * resolution, round-robin over members, transparent retries and the deadline.
   */
  private unary<Request, Response>(
    method: string,
    requestCodec: MessageCodec<Request>,
    responseCodec: MessageCodec<Response>,
    request: Request,
    key: string,
    timeoutMs = this.timeoutMs,
  ): Promise<Response> {
    return new Promise((resolve, reject) => {
      const library = grpcLibrary();
      let message: Buffer;
      try {
        message = requestCodec.serialize(request);
      } catch (error) {
        reject(new StorageError("Unavailable", key, { message: `etcd ${method}: the request did not encode`, cause: error }));
        return;
      }
      const call = this.channel.createCall(method, Date.now() + timeoutMs, undefined, null, undefined);
      let received: Buffer | undefined;
      call.start(new library.Metadata(), {
        onReceiveMetadata: () => {},
        onReceiveMessage: (bytes: Buffer) => {
          received = bytes;
        },
        onReceiveStatus: (status) => {
          if (status.code !== library.status.OK) {
            reject(translateError(Object.assign(new Error(`${status.code} ${status.details}`), status), key));
            return;
          }
          if (received === undefined) {
            reject(new StorageError("Unavailable", key, { message: `etcd ${method}: empty response` }));
            return;
          }
          try {
            resolve(responseCodec.deserialize(received));
          } catch (error) {
            reject(new StorageError("Unavailable", key, { message: `etcd ${method}: the response did not decode`, cause: error }));
          }
        },
      });
      call.sendMessageWithContext({}, message);
      call.halfClose();
      call.startRead();
    });
  }
}

/** grpc status → StorageError: the revision errors keep their meaning, the rest say why etcd did not answer. */
export function translateError(error: Pick<grpc.ServiceError, "code" | "details" | "message">, key: string): StorageError {
  const details = error.details ?? error.message;
  if (details.includes(COMPACTED)) return new StorageError("Compacted", key, { message: details, cause: error });
  if (details.includes(FUTURE)) return new StorageError("FutureRevision", key, { message: details, cause: error });
  // etcd's --max-request-bytes: a write our own limit let through (etcd counts the whole request).
  if (details.includes("request is too large")) return new StorageError("RequestTooLarge", key, { message: details, cause: error });
  if (error.code === grpcLibrary().status.DEADLINE_EXCEEDED) {
    return new StorageError("Timeout", key, { message: `etcd did not answer in time: ${details}`, cause: error });
  }
  return new StorageError("Unavailable", key, { message: `etcd unavailable: ${details}`, cause: error });
}

/** `--etcd-servers` → a grpc-js target over all endpoints (IP literals) or the first host name. */
function channelTarget(endpoints: readonly string[]): { target: string; secure: boolean; host: string } {
  if (endpoints.length === 0) throw new RangeError("no etcd endpoints");
  const urls = endpoints.map((endpoint) => new URL(endpoint));
  const schemes = new Set(urls.map((url) => url.protocol));
  if (schemes.size !== 1 || !(schemes.has("http:") || schemes.has("https:"))) {
    throw new RangeError(`etcd endpoints must all be http:// or all https://, got ${endpoints.join(",")}`);
  }
  const secure = schemes.has("https:");
  const first = urls[0] as URL;
  const hosts = urls.map((url) => ({ host: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? "2379" : url.port }));
  const host = hosts[0]?.host ?? first.hostname;
  if (hosts.every((entry) => /^\d+\.\d+\.\d+\.\d+$/.test(entry.host))) {
    return { target: `ipv4:${hosts.map((entry) => `${entry.host}:${entry.port}`).join(",")}`, secure, host };
  }
  if (hosts.every((entry) => entry.host.includes(":"))) {
    return { target: `ipv6:${hosts.map((entry) => `[${entry.host}]:${entry.port}`).join(",")}`, secure, host };
  }
  // Host names: grpc's resolver balances over every address the first name resolves to.
  return { target: `dns:${host}:${hosts[0]?.port ?? "2379"}`, secure, host };
}
