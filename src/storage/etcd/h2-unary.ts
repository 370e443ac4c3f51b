/**
 * gRPC unary calls over one kept HTTP/2 connection to one etcd member: the fast path of
 * `EtcdClient` for Range and Txn (the calls every read and write makes). It speaks HTTP/2 itself
 * on a plain TCP or TLS socket — frames (RFC 9113) written and read here, reply headers decoded by
 * `hpack.ts` — instead of through `node:http2`, whose client stream cost most of a create's etcd
 * call (see docs/architecture.md). It frames the request (HEADERS with literal fields that never
 * touch HPACK's dynamic table, then the five-byte gRPC prefix and the message in DATA), reads the
 * reply's message and `grpc-status`, answers PINGs and SETTINGS, keeps flow-control windows, and
 * nothing else: no resolver, balancer, retries, keepalive or filters. Those stay with the grpc-js
 * channel beside it, which serves every call this path does not take: while the connection is
 * being made, after it failed (for a second, then it reconnects, to the next endpoint), a request
 * larger than the peer's window lets us send at once, and every call the connection refused before
 * sending it (`unsent`: never reached etcd — not written, `REFUSED_STREAM`, or above a GOAWAY's
 * last stream — so sending it again through grpc-js cannot apply it twice). A call that was sent
 * and lost its stream answers UNAVAILABLE, as grpc-js answers a call on a dropped connection.
 */
import { Connection, type OpenStream, type StreamHandlers } from "./h2-connection.js";
import type { H2UnaryOptions, UnaryResult } from "./h2-wire.js";

export { grpcTimeout, type H2UnaryOptions, type UnaryResult, type UnaryStatus } from "./h2-wire.js";
export type { OpenStream, StreamHandlers } from "./h2-connection.js";

/** How long a failed connection keeps the fast path off before the next endpoint is tried. */
const RECONNECT_AFTER_MS = 1000;
const UNSENT: UnaryResult = { kind: "unsent" };

export class H2Unary {
  private connection: Connection | undefined;
  /**
   * Retired connections whose streams (watches) or calls are still open: they close on their own
   * once those end, and `close` closes them too, so a watch left on one hears CANCELLED when the
   * store closes rather than nothing.
   */
  private readonly retired = new Set<Connection>();
  private next = 0;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly options: H2UnaryOptions) {}

  /**
   * Sends one request message to `path` (`/etcdserverpb.KV/Txn`) with a deadline. Never rejects:
   * the answer is the reply's message, a gRPC status, or `unsent`.
   */
  call(path: string, message: Buffer, timeoutMs: number): Promise<UnaryResult> {
    const connection = this.usable();
    if (connection === undefined) return Promise.resolve(UNSENT);
    return connection.call(path, message, timeoutMs);
  }

  /**
   * Opens a streaming call (etcd's Watch) on the ready connection, or undefined when there is none
   * (the caller opens it through grpc-js). It lives as long as that connection: when the connection
   * fails, goes silent (its keepalive PING unanswered) or is closed, the stream ends with a status.
   */
  stream(path: string, headers: Buffer, handlers: StreamHandlers): OpenStream | undefined {
    return this.usable()?.stream(path, headers, handlers);
  }

  /**
   * Resolves once the connection is ready, or at once when it is not being made (it failed a
   * moment ago), or after `waitMs` while it is still connecting.
   */
  async whenReady(waitMs: number): Promise<void> {
    const until = Date.now() + waitMs;
    while (this.usable() === undefined && this.connection !== undefined && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    this.connection = undefined;
    for (const connection of this.retired) connection.close();
    this.retired.clear();
  }

  /** The ready connection, starting one when there is none (calls meanwhile go to grpc-js). */
  private usable(): Connection | undefined {
    const connection = this.connection;
    if (connection !== undefined) return connection.ready ? connection : undefined;
    if (this.closed || Date.now() < this.retryAt) return undefined;
    const endpoints = this.options.endpoints;
    const url = new URL(endpoints[this.next % endpoints.length] as string);
    this.next++;
    const made = new Connection(
      url,
      this.options.tls,
      (failed) => {
        if (this.connection !== failed) return;
        for (const connection of this.retired) if (connection.done) this.retired.delete(connection);
        this.retired.add(failed);
        this.connection = undefined;
        this.retryAt = Date.now() + RECONNECT_AFTER_MS;
      },
      this.options.keepalive,
    );
    this.connection = made;
    return undefined;
  }
}
