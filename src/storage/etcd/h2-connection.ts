/**
 * One HTTP/2 connection of `h2-unary.ts` to one etcd member: its socket, streams, flow-control
 * windows, header decoder and deadlines. See h2-unary.ts for what it is for and what it leaves to grpc-js.
 */
import net from "node:net";
import tls from "node:tls";
import { HpackDecoder } from "./hpack.js";
import {
  ACK,
  CANCEL,
  CONTINUATION,
  DATA,
  DEADLINE_EXCEEDED,
  END_HEADERS,
  END_STREAM,
  GOAWAY,
  HEADERS,
  INTERNAL,
  MAX_STREAM_ID,
  PADDED,
  PING,
  PREFACE,
  PRIORITY_FLAG,
  PUSH_PROMISE,
  REFUSED_STREAM,
  RST_STREAM,
  SETTINGS,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_HEADER_TABLE_SIZE,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_CONCURRENT_STREAMS,
  SETTINGS_MAX_FRAME_SIZE,
  WINDOW_UPDATE,
  frame,
  grpcTimeout,
  literalNewName,
  literalValue,
  literalWithIndexedName,
  settingsPayload,
  statusOf,
  uint32,
  unavailable,
  writeFrameHeader,
  type H2UnaryOptions,
  type UnaryResult,
  type UnaryStatus,
} from "./h2-wire.js";

/** client-go's HTTP/2 windows: large list pages are not throttled by flow control. */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;
/** How often deadlines are checked while calls are out (a deadline fires at most this late). */
const DEADLINE_SWEEP_MS = 25;
const UNSENT: UnaryResult = { kind: "unsent" };

/** A call waiting for the peer's flow-control window or a stream slot (not sent yet). */
interface Waiting {
  readonly path: string;
  readonly message: Buffer;
  readonly timeoutMs: number;
  readonly resolve: (result: UnaryResult) => void;
  readonly deadline: number;
}

/** One call on a connection. */
interface Call {
  readonly id: number;
  readonly resolve: (result: UnaryResult) => void;
  readonly deadline: number;
  readonly chunks: Buffer[];
  /** Response headers seen (later headers are trailers). */
  responded: boolean;
  status: UnaryStatus | undefined;
  /** Bytes received on the stream since its window was last topped up. */
  unacknowledged: number;
}

/** What the owner of a streaming call hears. */
export interface StreamHandlers {
  /** One reply message (a view into the bytes read: valid during the call only). */
  message(bytes: Buffer): void;
  /** The stream is over, once: status 0 when the peer ended it cleanly, else why. */
  end(status: UnaryStatus): void;
}

/** A streaming call's sending side. */
export interface OpenStream {
  /** Sends one message on the stream (held, in order, while the peer's windows are short). */
  send(message: Buffer): void;
  /** Cancels the stream (RST_STREAM CANCEL); its handlers hear nothing more. */
  cancel(): void;
}

/** One streaming call on a connection (etcd's Watch): no deadline, messages both ways until either side ends it. */
interface Stream {
  readonly id: number;
  readonly handlers: StreamHandlers;
  responded: boolean;
  /** Bytes received on the stream since its window was last topped up. */
  unacknowledged: number;
  /** What the peer lets us send on this stream. */
  sendWindow: number;
  /** Messages (with their gRPC prefix) waiting for the windows. */
  readonly outgoing: Buffer[];
  /** The start of a reply message whose rest has not arrived, in the pieces read so far. */
  readonly partial: Buffer[];
  partialLength: number;
  /** How many bytes `partial` needs before a message can be read from it. */
  partialNeed: number;
}

/** While streams are open, the connection is checked with a PING this often and given this long to answer (grpc-js's keepalive settings in etcd-client.ts). */
const KEEPALIVE = { intervalMs: 10_000, timeoutMs: 2_000 };
const KEEPALIVE_PAYLOAD = Buffer.from("orchkeep", "latin1");
const CANCELLED = 1;

/** One HTTP/2 connection: its socket, streams, windows and header decoder. */
export class Connection {
  ready = false;
  private retired = false;
  private readonly socket: net.Socket;
  private readonly calls = new Map<number, Call>();
  private readonly streams = new Map<number, Stream>();
  private keepalive: NodeJS.Timeout | undefined;
  private keepaliveDeadline: NodeJS.Timeout | undefined;
  private readonly blocked: Waiting[] = [];
  private readonly decoder = new HpackDecoder();
  private readonly prefixes = new Map<string, Buffer>();
  private readonly authority: string;
  private readonly scheme: number;
  private nextStreamId = 1;
  /** What the peer lets us send: on the connection, and on a new stream. */
  private sendWindow = 65_535;
  private peerStreamWindow = 65_535;
  private peerMaxFrame = 16_384;
  private peerMaxStreams = Number.POSITIVE_INFINITY;
  /** Bytes received on the connection since its window was last topped up. */
  private unacknowledged = 0;
  private pending: Buffer | undefined;
  /** A header block split over HEADERS and CONTINUATION frames. */
  private headerBlock: { readonly stream: number; readonly endStream: boolean; readonly parts: Buffer[] } | undefined;
  private outgoing: Buffer[] = [];
  private flushScheduled = false;
  private sweep: NodeJS.Timeout | undefined;

  constructor(
    url: URL,
    keys: H2UnaryOptions["tls"],
    private readonly onRetire: (connection: Connection) => void,
    private readonly keepaliveTiming: NonNullable<H2UnaryOptions["keepalive"]> = KEEPALIVE,
  ) {
    const secure = url.protocol === "https:";
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const port = Number(url.port === "" ? "2379" : url.port);
    this.authority = url.host;
    this.scheme = secure ? 0x87 : 0x86;
    this.socket = secure
      ? tls.connect({
          host,
          port,
          ALPNProtocols: ["h2"],
          ...(keys?.ca === undefined ? {} : { ca: keys.ca }),
          ...(keys?.cert === undefined ? {} : { cert: keys.cert }),
          ...(keys?.key === undefined ? {} : { key: keys.key }),
          // RFC 6066 forbids an IP literal as the server name.
          ...(net.isIP(host) === 0 ? { servername: host } : {}),
        })
      : net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.unref();
    this.socket.once(secure ? "secureConnect" : "connect", () => {
      if (secure && (this.socket as tls.TLSSocket).alpnProtocol !== "h2") {
        this.fail("the server did not agree to HTTP/2");
        return;
      }
      // Preface, our settings (no push, client-go's stream window), and the connection window.
      this.socket.write(
        Buffer.concat([
          PREFACE,
          frame(SETTINGS, 0, 0, settingsPayload([SETTINGS_ENABLE_PUSH, 0], [SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW])),
          frame(WINDOW_UPDATE, 0, 0, uint32(CONNECTION_WINDOW - 65_535)),
        ]),
      );
    });
    this.socket.on("data", (chunk: Buffer) => this.read(chunk));
    this.socket.on("error", () => this.fail("connection error"));
    this.socket.on("close", () => this.fail("connection closed"));
  }

  call(path: string, message: Buffer, timeoutMs: number): Promise<UnaryResult> {
    // Larger than a stream may ever send at once here (the peer's stream window): grpc-js splits it.
    if (this.retired || message.length + 5 > this.peerStreamWindow || this.nextStreamId > MAX_STREAM_ID) return Promise.resolve(UNSENT);
    // Referenced while calls are out (as a per-call timer would be): a caller awaiting one keeps the process alive.
    this.sweep ??= setInterval(() => this.checkDeadlines(), DEADLINE_SWEEP_MS);
    return new Promise((resolve) => {
      const waiting: Waiting = { path, message, timeoutMs, resolve, deadline: Date.now() + timeoutMs };
      if (this.blocked.length > 0 || !this.send(waiting)) this.blocked.push(waiting);
    });
  }

  /**
   * Opens a streaming call to `path` (HEADERS without END_STREAM; `headers` are further literal
   * fields, e.g. etcd's `hasleader`), or undefined when this connection cannot take one now (not
   * ready, retired, no stream slot): the caller then uses grpc-js.
   */
  stream(path: string, headers: Buffer, handlers: StreamHandlers): OpenStream | undefined {
    if (!this.ready || this.retired || this.nextStreamId > MAX_STREAM_ID || this.calls.size + this.streams.size >= this.peerMaxStreams) return undefined;
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const prefix = this.headerPrefix(path);
    const block = Buffer.allocUnsafe(9 + prefix.length + headers.length);
    const at = writeFrameHeader(block, 0, prefix.length + headers.length, HEADERS, END_HEADERS, id);
    prefix.copy(block, at);
    headers.copy(block, at + prefix.length);
    this.queue(block);
    const stream: Stream = {
      id,
      handlers,
      responded: false,
      unacknowledged: 0,
      sendWindow: this.peerStreamWindow,
      outgoing: [],
      partial: [],
      partialLength: 0,
      partialNeed: 0,
    };
    this.streams.set(id, stream);
    this.keepalive ??= setInterval(() => this.ping(), this.keepaliveTiming.intervalMs).unref();
    if (this.nextStreamId > MAX_STREAM_ID) this.retire();
    return {
      send: (message) => {
        if (this.streams.get(id) !== stream) return;
        const framed = Buffer.allocUnsafe(5 + message.length);
        framed[0] = 0;
        framed.writeUInt32BE(message.length, 1);
        message.copy(framed, 5);
        stream.outgoing.push(framed);
        this.pump(stream);
      },
      cancel: () => {
        if (this.streams.get(id) !== stream) return;
        this.queue(frame(RST_STREAM, 0, id, uint32(CANCEL)));
        this.dropStream(stream);
      },
    };
  }

  /** Sends a stream's waiting messages as far as both windows allow. */
  private pump(stream: Stream): void {
    while (stream.outgoing.length > 0) {
      const message = stream.outgoing[0] as Buffer;
      if (message.length > Math.min(this.sendWindow, stream.sendWindow)) return;
      stream.outgoing.shift();
      this.sendWindow -= message.length;
      stream.sendWindow -= message.length;
      for (let sent = 0; sent < message.length; sent += this.peerMaxFrame) {
        const size = Math.min(this.peerMaxFrame, message.length - sent);
        const out = Buffer.allocUnsafe(9 + size);
        writeFrameHeader(out, 0, size, DATA, 0, stream.id);
        message.copy(out, 9, sent, sent + size);
        this.queue(out);
      }
    }
  }

  /** Ends a stream with `status` (its handlers' last call). */
  private endStream(stream: Stream, status: UnaryStatus): void {
    if (!this.dropStream(stream)) return;
    stream.handlers.end(status);
  }

  private dropStream(stream: Stream): boolean {
    if (this.streams.get(stream.id) !== stream) return false;
    this.streams.delete(stream.id);
    if (this.streams.size === 0) this.stopKeepalive();
    this.closeWhenIdle();
    return true;
  }

  private endStreams(status: UnaryStatus): void {
    for (const stream of [...this.streams.values()]) this.endStream(stream, status);
  }

  /** A PING while streams are open; no answer within the keepalive timeout fails the connection (a member that went silent). */
  private ping(): void {
    if (this.keepaliveDeadline !== undefined) return;
    this.queue(frame(PING, 0, 0, KEEPALIVE_PAYLOAD));
    this.keepaliveDeadline = setTimeout(() => this.fail("keepalive ping not answered"), this.keepaliveTiming.timeoutMs).unref();
  }

  private stopKeepalive(): void {
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    if (this.keepaliveDeadline !== undefined) clearTimeout(this.keepaliveDeadline);
    this.keepalive = undefined;
    this.keepaliveDeadline = undefined;
  }

  /**
   * Opens the call's stream and queues its frames when the peer's windows and stream limit allow
   * (false: not now). Stream ids are taken here, so they go out in increasing order.
   */
  private send(waiting: Waiting): boolean {
    const length = waiting.message.length + 5;
    if (length > this.sendWindow || this.calls.size + this.streams.size >= this.peerMaxStreams) return false;
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    this.sendWindow -= length;
    this.queue(this.requestFrames(id, waiting.path, waiting.message, waiting.timeoutMs));
    this.calls.set(id, { id, resolve: waiting.resolve, deadline: waiting.deadline, chunks: [], responded: false, status: undefined, unacknowledged: 0 });
    // The connection's last stream id is taken: it closes once this call has its answer, and the
    // owner makes a new one (a connection that stayed ready would answer every later call unsent).
    if (this.nextStreamId > MAX_STREAM_ID) this.retire();
    return true;
  }

  /** Sends the calls that waited for a window or a stream slot, in order, as far as they now fit. */
  private unblock(): void {
    while (this.blocked.length > 0 && !this.retired) {
      if (!this.send(this.blocked[0] as Waiting)) return;
      this.blocked.shift();
    }
  }

  /** Calls that never went out: another path may send them. */
  private releaseBlocked(): void {
    for (const waiting of this.blocked.splice(0)) waiting.resolve(UNSENT);
  }

  /** The socket is gone (closed, failed, or closed once idle after retiring). */
  get done(): boolean {
    return this.socket.destroyed;
  }

  /** Stops new calls; the socket closes now (`close`) or once the calls out have their answers. */
  close(): void {
    this.retire();
    this.endStreams({ code: CANCELLED, details: "Cancelled on client", message: "1 CANCELLED: Cancelled on client" });
    this.socket.destroy();
  }

  /** HEADERS (END_HEADERS) then DATA frames (the last with END_STREAM): the gRPC prefix and the message. */
  private requestFrames(id: number, path: string, message: Buffer, timeoutMs: number): Buffer {
    const prefix = this.headerPrefix(path);
    const timeout = Buffer.from(grpcTimeout(timeoutMs), "latin1");
    // grpc-timeout: a literal without indexing, its name new (0x00), lengths below 127.
    const headerLength = prefix.length + 2 + GRPC_TIMEOUT.length + 1 + timeout.length;
    const body = message.length + 5;
    const dataFrames = Math.max(1, Math.ceil(body / this.peerMaxFrame));
    const out = Buffer.allocUnsafe(9 + headerLength + 9 * dataFrames + body);
    let at = writeFrameHeader(out, 0, headerLength, HEADERS, END_HEADERS, id);
    at += prefix.copy(out, at);
    out[at++] = 0;
    out[at++] = GRPC_TIMEOUT.length;
    at += GRPC_TIMEOUT.copy(out, at);
    out[at++] = timeout.length;
    at += timeout.copy(out, at);
    let sent = 0;
    for (let index = 0; index < dataFrames; index++) {
      const size = Math.min(this.peerMaxFrame, body - sent);
      at = writeFrameHeader(out, at, size, DATA, index === dataFrames - 1 ? END_STREAM : 0, id);
      if (index === 0) {
        out[at] = 0;
        out.writeUInt32BE(message.length, at + 1);
        message.copy(out, at + 5, 0, size - 5);
      } else {
        message.copy(out, at, sent - 5, sent - 5 + size);
      }
      at += size;
      sent += size;
    }
    return out;
  }

  /** The header fields every call to `path` sends (grpc-timeout is added per call). */
  private headerPrefix(path: string): Buffer {
    let prefix = this.prefixes.get(path);
    if (prefix === undefined) {
      prefix = Buffer.concat([
        // :method POST, :scheme (static table indexes 3, 6/7).
        Buffer.from([0x83, this.scheme]),
        literalWithIndexedName(0x04, path), // :path
        literalWithIndexedName(0x01, this.authority), // :authority
        Buffer.from([0x0f, 0x10]), // content-type (index 31) …
        literalValue("application/grpc"),
        literalNewName("te", "trailers"),
      ]);
      this.prefixes.set(path, prefix);
    }
    return prefix;
  }

  /**
   * Writes are gathered and sent together once this loop iteration's I/O callbacks are done (its
   * check phase), not at the end of each callback: the requests that arrive in one poll (several
   * clients' creates, say) go to etcd in one socket write. A write per call cost a syscall and,
   * on a busy machine, a wake-up of etcd that preempts this thread (a context switch and a cold
   * cache for what follows) per call; see docs/architecture.md. It adds no wait: libuv does not
   * block in poll while an immediate is pending.
   */
  private queue(buffer: Buffer): void {
    this.outgoing.push(buffer);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const buffers = this.outgoing;
    this.outgoing = [];
    if (buffers.length === 0 || this.socket.destroyed) return;
    this.socket.write(buffers.length === 1 ? (buffers[0] as Buffer) : Buffer.concat(buffers));
  }

  private read(chunk: Buffer): void {
    let data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    let at = 0;
    try {
      while (data.length - at >= 9) {
        const length = data.readUIntBE(at, 3);
        if (data.length - at < 9 + length) break;
        const type = data[at + 3] as number;
        const flags = data[at + 4] as number;
        const stream = data.readUInt32BE(at + 5) & 0x7fffffff;
        const payload = data.subarray(at + 9, at + 9 + length);
        at += 9 + length;
        this.onFrame(type, flags, stream, payload);
      }
    } catch (error) {
      this.fail(`protocol error: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (at < data.length) {
      data = data.subarray(at);
      this.pending = data;
    }
  }

  private onFrame(type: number, flags: number, stream: number, payload: Buffer): void {
    if (this.headerBlock !== undefined && type !== CONTINUATION) throw new RangeError("a header block was interrupted");
    switch (type) {
      case DATA:
        this.onData(flags, stream, payload);
        return;
      case HEADERS: {
        let start = 0;
        let end = payload.length;
        if (flags & PADDED) {
          start = 1;
          end -= payload[0] as number;
        }
        if (flags & PRIORITY_FLAG) start += 5;
        if (start > end) throw new RangeError("bad HEADERS padding");
        const part = payload.subarray(start, end);
        if (flags & END_HEADERS) this.onHeaders(stream, part, (flags & END_STREAM) !== 0);
        else this.headerBlock = { stream, endStream: (flags & END_STREAM) !== 0, parts: [Buffer.from(part)] };
        return;
      }
      case CONTINUATION: {
        const block = this.headerBlock;
        if (block === undefined || block.stream !== stream) throw new RangeError("CONTINUATION without its HEADERS");
        block.parts.push(Buffer.from(payload));
        if (flags & END_HEADERS) {
          this.headerBlock = undefined;
          this.onHeaders(stream, Buffer.concat(block.parts), block.endStream);
        }
        return;
      }
      case RST_STREAM: {
        const code = payload.length >= 4 ? payload.readUInt32BE(0) : 0;
        const open = this.streams.get(stream);
        if (open !== undefined) {
          this.endStream(open, unavailable(`stream reset (HTTP/2 code ${code})`));
          return;
        }
        const call = this.calls.get(stream);
        if (call === undefined) return;
        if (call.status === undefined && !call.responded && code === REFUSED_STREAM) this.finish(call, UNSENT);
        else this.finish(call, undefined, `stream closed before its status (HTTP/2 code ${code})`);
        return;
      }
      case SETTINGS:
        if (flags & ACK) return;
        this.onSettings(payload);
        return;
      case PING:
        if (!(flags & ACK)) this.queue(frame(PING, ACK, 0, payload));
        else if (payload.equals(KEEPALIVE_PAYLOAD) && this.keepaliveDeadline !== undefined) {
          clearTimeout(this.keepaliveDeadline);
          this.keepaliveDeadline = undefined;
        }
        return;
      case GOAWAY: {
        const last = payload.length >= 4 ? payload.readUInt32BE(0) & 0x7fffffff : 0;
        this.retire();
        // Streams above the last one the peer processed were not processed: another path may send them.
        for (const call of [...this.calls.values()]) if (call.id > last) this.finish(call, UNSENT);
        for (const open of [...this.streams.values()]) if (open.id > last) this.endStream(open, unavailable("stream not processed (GOAWAY)"));
        this.closeWhenIdle();
        return;
      }
      case WINDOW_UPDATE: {
        // A unary call sends its whole message at once (checked against the windows first): only the
        // connection's window and the streaming calls' own count.
        if (payload.length < 4) return;
        const increment = payload.readUInt32BE(0) & 0x7fffffff;
        if (stream === 0) {
          this.sendWindow += increment;
          this.unblock();
          for (const open of this.streams.values()) this.pump(open);
          return;
        }
        const open = this.streams.get(stream);
        if (open !== undefined) {
          open.sendWindow += increment;
          this.pump(open);
        }
        return;
      }
      case PUSH_PROMISE:
        throw new RangeError("PUSH_PROMISE with push disabled");
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 §4.1, §5.5).
        return;
    }
  }

  private onSettings(payload: Buffer): void {
    for (let at = 0; at + 6 <= payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        // Applies to the streams already open too (RFC 9113 §6.9.2).
        for (const open of this.streams.values()) open.sendWindow += value - this.peerStreamWindow;
        this.peerStreamWindow = value;
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        // RFC 9113 §6.5.2: 2^14 to 2^24 - 1, else a PROTOCOL_ERROR. A frame size of 0 would loop
        // forever splitting a message into empty DATA frames.
        if (value < 16_384 || value > 16_777_215) throw new RangeError(`SETTINGS_MAX_FRAME_SIZE ${value} out of range`);
        this.peerMaxFrame = value;
      } else if (id === SETTINGS_MAX_CONCURRENT_STREAMS) this.peerMaxStreams = value;
      // SETTINGS_HEADER_TABLE_SIZE bounds our encoder's table, which we never use.
      else if (id === SETTINGS_HEADER_TABLE_SIZE) continue;
    }
    this.queue(frame(SETTINGS, ACK, 0, Buffer.alloc(0)));
    // The peer's first SETTINGS says it speaks HTTP/2: calls may go out.
    if (!this.retired) this.ready = true;
    this.unblock();
    // A larger initial window opens the streams' windows as a WINDOW_UPDATE would (grpc-go raises
    // it this way as it measures the connection), and the peer sends no WINDOW_UPDATE for that:
    // messages a stream holds go out now.
    for (const open of this.streams.values()) this.pump(open);
  }

  private onData(flags: number, stream: number, payload: Buffer): void {
    this.unacknowledged += payload.length;
    // Top the connection window up once a quarter of it is used.
    if (this.unacknowledged >= CONNECTION_WINDOW / 4) {
      this.queue(frame(WINDOW_UPDATE, 0, 0, uint32(this.unacknowledged)));
      this.unacknowledged = 0;
    }
    const open = this.streams.get(stream);
    if (open !== undefined) {
      this.onStreamData(open, flags, payload);
      return;
    }
    const call = this.calls.get(stream);
    if (call === undefined) return;
    let body = payload;
    if (flags & PADDED) body = payload.subarray(1, payload.length - (payload[0] as number));
    call.chunks.push(body);
    call.unacknowledged += payload.length;
    if (call.unacknowledged >= STREAM_WINDOW / 2 && !(flags & END_STREAM)) {
      this.queue(frame(WINDOW_UPDATE, 0, stream, uint32(call.unacknowledged)));
      call.unacknowledged = 0;
    }
    if (flags & END_STREAM) this.finish(call, undefined, "stream ended without trailers");
  }

  /** A streaming call's DATA: every whole message to its handler, the rest kept for the next frame. */
  private onStreamData(stream: Stream, flags: number, payload: Buffer): void {
    let body = payload;
    if (flags & PADDED) body = payload.subarray(1, payload.length - (payload[0] as number));
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged >= STREAM_WINDOW / 2 && !(flags & END_STREAM)) {
      this.queue(frame(WINDOW_UPDATE, 0, stream.id, uint32(stream.unacknowledged)));
      stream.unacknowledged = 0;
    }
    let data = body;
    if (stream.partialLength > 0) {
      // A message split over frames is joined once, when all of it is here.
      stream.partial.push(body);
      stream.partialLength += body.length;
      if (stream.partialLength < stream.partialNeed) {
        if (flags & END_STREAM) this.endStream(stream, unavailable("stream ended without trailers"));
        return;
      }
      data = Buffer.concat(stream.partial, stream.partialLength);
      stream.partial.length = 0;
      stream.partialLength = 0;
    }
    while (data.length >= 5) {
      if (data[0] !== 0) {
        this.queue(frame(RST_STREAM, 0, stream.id, uint32(CANCEL)));
        this.endStream(stream, { code: INTERNAL, details: "compressed reply message", message: "13 INTERNAL: compressed reply message" });
        return;
      }
      const length = data.readUInt32BE(1);
      if (data.length < 5 + length) break;
      stream.handlers.message(data.subarray(5, 5 + length));
      // The handler may have cancelled the stream.
      if (this.streams.get(stream.id) !== stream) return;
      data = data.subarray(5 + length);
    }
    if (data.length > 0) {
      // Copied: `data` may be a view into the socket's read.
      stream.partial.push(Buffer.from(data));
      stream.partialLength = data.length;
      stream.partialNeed = data.length >= 5 ? 5 + data.readUInt32BE(1) : 5;
    }
    if (flags & END_STREAM) this.endStream(stream, unavailable("stream ended without trailers"));
  }

  private onHeaders(stream: number, block: Buffer, endStream: boolean): void {
    // Every block is decoded, the stream's or not: the dynamic table is the connection's.
    const fields = this.decoder.decode(block);
    const open = this.streams.get(stream);
    if (open !== undefined) {
      const first = !open.responded;
      open.responded = true;
      const status = statusOf(fields, first);
      if (status !== undefined && (endStream || !first)) this.endStream(open, status);
      else if (endStream) this.endStream(open, unavailable(first ? "headers without grpc-status" : "trailers without grpc-status"));
      return;
    }
    const call = this.calls.get(stream);
    if (call === undefined) return;
    const first = !call.responded;
    call.responded = true;
    call.status ??= statusOf(fields, first);
    if (endStream) this.finish(call, undefined, first ? "headers without grpc-status" : "trailers without grpc-status");
  }

  /** Ends a call: with `result`, or from what the stream brought (`missing` names a status that never came). */
  private finish(call: Call, result: UnaryResult | undefined, missing?: string): void {
    if (!this.calls.delete(call.id)) return;
    call.resolve(result ?? outcome(call, missing ?? "no status"));
    if (this.blocked.length > 0) this.unblock();
    this.closeWhenIdle();
  }

  private checkDeadlines(): void {
    const now = Date.now();
    // A call still waiting for a window at its deadline never went out: the caller decides.
    while (this.blocked.length > 0 && (this.blocked[0] as Waiting).deadline <= now) (this.blocked.shift() as Waiting).resolve(UNSENT);
    for (const call of [...this.calls.values()]) {
      if (call.deadline > now) continue;
      this.queue(frame(RST_STREAM, 0, call.id, uint32(CANCEL)));
      this.finish(call, {
        kind: "status",
        status: { code: DEADLINE_EXCEEDED, details: "Deadline exceeded", message: "4 DEADLINE_EXCEEDED: Deadline exceeded" },
      });
      // Maybe a member that stopped answering without closing the connection: new calls go to the
      // next connection. Its open streams (watches) stay: a slow call (a linearizable read past
      // /readyz's 2 s during a disk stall) says nothing of them, as a unary deadline ends no
      // stream in grpc-js; the keepalive PING ends them if the member went silent, and etcd ends
      // `hasleader` watches itself when its member loses the leader. The connection closes once
      // they end.
      this.retire();
    }
    if (this.calls.size === 0 && this.blocked.length === 0 && this.sweep !== undefined) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }

  /** No new calls here; the owner makes the next connection after a pause. */
  private retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.ready = false;
    this.releaseBlocked();
    this.onRetire(this);
  }

  private closeWhenIdle(): void {
    if (!this.retired || this.calls.size > 0 || this.streams.size > 0) return;
    if (this.sweep !== undefined) clearInterval(this.sweep);
    this.sweep = undefined;
    // Let the queued frames (an RST_STREAM, a PING ack) go first.
    setImmediate(() => {
      this.flush();
      this.socket.destroy();
    });
  }

  /** The connection is gone: every call out answers UNAVAILABLE (it may have been applied). */
  private fail(reason: string): void {
    this.retire();
    for (const call of [...this.calls.values()]) this.finish(call, { kind: "status", status: unavailable(reason) });
    this.endStreams(unavailable(reason));
    this.stopKeepalive();
    if (this.sweep !== undefined) clearInterval(this.sweep);
    this.sweep = undefined;
    this.socket.destroy();
  }
}
const GRPC_TIMEOUT = Buffer.from("grpc-timeout", "latin1");

/** A call's answer from its status and message. */
function outcome(call: Call, missing: string): UnaryResult {
  const status = call.status ?? unavailable(missing);
  if (status.code !== 0) return { kind: "status", status };
  const body = call.chunks.length === 1 ? (call.chunks[0] as Buffer) : Buffer.concat(call.chunks);
  const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
  if (body[0] !== 0 || length + 5 !== body.length) {
    return { kind: "status", status: { code: INTERNAL, details: "malformed reply message", message: "13 INTERNAL: malformed reply message" } };
  }
  return { kind: "ok", message: body.subarray(5) };
}
