import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import http2, { type ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import type { ChunkSink } from "../request/push-body.js";

/**
 * The answer side of one request, whichever protocol carries it: what the listener's response
 * writer needs (status and headers, chunks with backpressure, the end) and nothing more. One per
 * request, made by the listener; nothing else holds it.
 */
export interface Outgoing {
  /** Whether the status and headers have been handed on. */
  readonly headersSent: boolean;
  /** Whether the body has been ended (by `end`, or by the protocol: a HEAD, 204 or 304 on HTTP/2). */
  readonly writableEnded: boolean;
  /** Whether everything written has been handed to the connection: a close before it is the client going away. */
  readonly writableFinished: boolean;
  /**
   * Sends the status and headers (names lower-case). `streaming`: a body of unknown length
   * follows, and the headers go out at once rather than with its first chunk (a watch must see
   * them before any event).
   */
  head(status: number, headers: OutgoingHttpHeaders, streaming: boolean): void;
  /** Writes one chunk; false when the connection's buffer is full: wait for `drained` before the next. */
  write(chunk: string | Uint8Array): boolean;
  /** Ends the body, with a last chunk when given. */
  end(chunk?: string | Uint8Array): void;
  /** Resolves on the next drain, or when the exchange closes. */
  drained(): Promise<void>;
  /** Where a pushed body (a watch) writes. */
  sink(): ChunkSink;
  /** Calls `listener` once when the exchange closes (answered, or the client gone). */
  onClose(listener: () => void): void;
}

interface Drainable {
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** Resolves on drain or close, removing both listeners either way. */
function drainOf(emitter: Drainable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      emitter.off("drain", done);
      emitter.off("close", done);
      resolve();
    };
    emitter.on("drain", done);
    emitter.on("close", done);
  });
}

function ignoreError(): void {}

/**
 * The `Warning` values with characters outside ASCII made sendable: a warning's text may quote a
 * client's input (an unknown field's name in any script). Other headers are the server's own ASCII.
 */
function encodeWarnings(headers: OutgoingHttpHeaders, encode: (value: string) => string): void {
  const fields = headers as Record<string, number | string | readonly string[] | undefined>;
  const warning = fields["warning"];
  if (typeof warning === "string") fields["warning"] = encode(warning);
  else if (Array.isArray(warning)) fields["warning"] = (warning as readonly string[]).map(encode);
}

const NON_ASCII = /[^ -~\t\r\n]/;
const ABOVE_LATIN1 = /[\u0100-\uffff]/g;

/**
 * HTTP/2: Node sends a header string one byte per character, so the text goes as its UTF-8 bytes
 * spelled one character per byte, as kube (Go) sends it; as they were, a character above U+00FF
 * made a field the client drops, and U+0080–U+00FF went out as Latin-1, not UTF-8.
 */
function utf8Bytes(value: string): string {
  return NON_ASCII.test(value) ? Buffer.from(value, "utf8").toString("latin1") : value;
}

/**
 * HTTP/1.1: Node writes header strings as UTF-8 but refuses a character above U+00FF (the whole
 * answer became a 500, after a create had been applied). Those characters are written as an
 * escaped `\uXXXX` (the client unquotes the warning to `\uXXXX`); the rest go out as UTF-8.
 */
function latin1Escaped(value: string): string {
  ABOVE_LATIN1.lastIndex = 0;
  return ABOVE_LATIN1.test(value) ? value.replace(ABOVE_LATIN1, (unit) => `\\\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`) : value;
}

/**
 * An HTTP/2 stream answered through Node's core stream API rather than its `Http2ServerResponse`
 * compatibility layer: the response's headers go out with `respond()` and the body ends with its
 * last DATA frame. The compatibility layer always asks for trailers (`waitForTrailers`), so each
 * response's end cost another JS round and an empty DATA frame written one event-loop turn later,
 * besides the request and response objects, their listeners and the proxy sockets it makes per
 * stream.
 */
export class Http2Outgoing implements Outgoing {
  constructor(private readonly stream: ServerHttp2Stream) {
    // A reset or a broken session surfaces as the stream's error: the close that follows is what
    // the listener acts on (the compatibility layer swallows these the same way).
    stream.on("error", ignoreError);
  }

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  get writableEnded(): boolean {
    return this.stream.writableEnded;
  }

  /**
   * Node's stream flags do not say this on their own: a stream the client reset before its answer
   * reports `writableFinished` (its destroy ends the writable side), and a stream whose request
   * body was read closes after a normal answer without 'finish' (so `writableFinished` is false).
   * `aborted` is Node's mark of a stream closed before its writable side ended; an ended stream
   * that closed without an error code delivered its answer.
   */
  get writableFinished(): boolean {
    const stream = this.stream;
    if (stream.aborted) return false;
    return stream.writableFinished || (stream.closed && stream.writableEnded && stream.rstCode === http2.constants.NGHTTP2_NO_ERROR);
  }

  head(status: number, headers: OutgoingHttpHeaders): void {
    // The client reset the stream (or the session went) before the answer: it goes nowhere.
    // `respond()` would throw ERR_HTTP2_INVALID_STREAM, and the listener's fallback answer with it.
    if (this.stream.destroyed || this.stream.closed) return;
    encodeWarnings(headers, utf8Bytes);
    headers[":status"] = status;
    this.stream.respond(headers);
  }

  write(chunk: string | Uint8Array): boolean {
    // Node ends a stream itself when its headers say no body may follow (HEAD, 204, 304).
    if (this.stream.writableEnded || this.stream.destroyed) return true;
    return this.stream.write(chunk);
  }

  end(chunk?: string | Uint8Array): void {
    if (this.stream.writableEnded || this.stream.destroyed) return;
    if (chunk === undefined) this.stream.end();
    else this.stream.end(chunk);
  }

  drained(): Promise<void> {
    return drainOf(this.stream);
  }

  sink(): ChunkSink {
    const stream = this.stream;
    return {
      write: (chunk) => chunk.length === 0 || stream.destroyed || stream.write(chunk),
      onDrain: (listener) => {
        stream.on("drain", listener);
        return () => stream.off("drain", listener);
      },
    };
  }

  onClose(listener: () => void): void {
    this.stream.once("close", listener);
  }
}

const CRLF = Buffer.from("\r\n");
/** Chunks framed for HTTP/1.1's chunked coding, made once per chunk for every response that writes it. */
const framedChunks = new WeakMap<Uint8Array, Buffer>();

function framed(chunk: Uint8Array): Buffer {
  let bytes = framedChunks.get(chunk);
  if (bytes === undefined) {
    bytes = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, CRLF]);
    framedChunks.set(chunk, bytes);
  }
  return bytes;
}

/** An HTTP/1.x response (Node's HTTP/1 server, reached through `allowHTTP1`). */
export class Http1Outgoing implements Outgoing {
  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
  ) {}

  get headersSent(): boolean {
    return this.response.headersSent;
  }

  get writableEnded(): boolean {
    return this.response.writableEnded;
  }

  get writableFinished(): boolean {
    return this.response.writableFinished;
  }

  head(status: number, headers: OutgoingHttpHeaders, streaming: boolean): void {
    encodeWarnings(headers, latin1Escaped);
    this.response.writeHead(status, headers);
    // HTTP/1.1 holds headers until the first write; a watch must see them at once.
    if (streaming) this.response.flushHeaders();
  }

  write(chunk: string | Uint8Array): boolean {
    return this.response.write(chunk);
  }

  end(chunk?: string | Uint8Array): void {
    if (chunk === undefined) this.response.end();
    else this.response.end(chunk);
  }

  drained(): Promise<void> {
    return drainOf(this.response);
  }

  /**
   * With HTTP/1.1 chunked coding and the headers on the wire, chunks go to the socket already
   * framed: one write of a Buffer shared by every watcher of the event, where the response's own
   * write would add a size line and CRLF per watcher and write them corked until the next tick.
   * The response still writes the last chunk when it ends. Elsewhere (a response queued behind a
   * pipelined one, HTTP/1.0) the response writes them.
   */
  sink(): ChunkSink {
    const http1 = this.response as unknown as { socket: Socket | null; chunkedEncoding?: boolean };
    const socket = this.request.httpVersion === "1.1" && http1.chunkedEncoding === true ? http1.socket : null;
    if (socket !== null) {
      return {
        write: (chunk) => chunk.length === 0 || socket.write(framed(chunk)),
        onDrain: (listener) => {
          socket.on("drain", listener);
          return () => socket.off("drain", listener);
        },
      };
    }
    const response = this.response;
    return {
      write: (chunk) => chunk.length === 0 || response.write(chunk),
      onDrain: (listener) => {
        response.on("drain", listener);
        return () => response.off("drain", listener);
      },
    };
  }

  onClose(listener: () => void): void {
    this.response.once("close", listener);
  }
}
