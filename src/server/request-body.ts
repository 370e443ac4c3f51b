import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import http2, { type ServerHttp2Stream } from "node:http2";
import type { Readable } from "node:stream";
import { ApiError } from "../api/errors.js";

/**
 * Where a request's body comes from: an HTTP/1.x message (Node's HTTP/1 server), or an HTTP/2
 * stream served through Node's core stream API (the stream is the body's readable side).
 */
export type BodyOrigin =
  | { readonly kind: "http1"; readonly message: IncomingMessage }
  | { readonly kind: "http2"; readonly stream: ServerHttp2Stream; readonly headers: IncomingHttpHeaders };

function readableOf(origin: BodyOrigin): Readable {
  return origin.kind === "http1" ? origin.message : origin.stream;
}

/**
 * A request's body as the listener hands it to the handler: read once on first use, at most
 * `limit` bytes, and whole within the body timeout of the request's arrival.
 */
export interface RequestBody {
  /** Reads the whole body (the `ApiRequest.body` contract): 413 past `limit`, 408 past the deadline. */
  read(limit: number): Promise<Buffer>;
  /**
   * Called by the listener once the answer has been handed to the response. A body the reader
   * stopped reading before its end (413, 408) must not hold the stream: the rest is read and
   * dropped (see `drain`), so the client's upload ends and its stream closes instead of waiting
   * forever on a flow-control window nobody opens. Go's HTTP/2 server (kube's) resets such a
   * stream with NO_ERROR at once (RFC 9113 §8.1), but Node's HTTP/2 client never closes a
   * stream reset that way while its upload is unsent: draining serves every client.
   */
  settle(): void;
}

/**
 * How much of an answered body the listener still reads (and drops) so that the client's upload
 * ends normally: past it the rest is refused (the stream reset, the connection closed).
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads and drops the rest of a body whose answer has been written, until its end, until
 * `DRAIN_LIMIT_BYTES` or until `deadline` (ms since the epoch), whichever comes first; then
 * refuses the rest: HTTP/2 resets the stream with CANCEL once the answer is out, HTTP/1.1 closes
 * the connection (its socket carries the rest of the body, so nothing else can be read from it).
 */
function drain(origin: BodyOrigin, deadline: number): void {
  const request = readableOf(origin);
  let dropped = 0;
  const done = (): void => {
    clearTimeout(timer);
    request.off("data", onData);
    request.off("end", done);
    request.off("close", done);
  };
  const refuse = (): void => {
    done();
    request.pause();
    if (origin.kind === "http1") {
      origin.message.socket.destroy();
      return;
    }
    const stream = origin.stream;
    const reset = (): void => {
      if (!stream.closed && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    // After the answer's last frame is handed on: a reset submitted earlier would drop it.
    if (stream.writableFinished) setImmediate(reset);
    else stream.once("finish", () => setImmediate(reset));
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT_BYTES) refuse();
  };
  const timer = setTimeout(refuse, Math.max(0, deadline - Date.now()));
  request.on("data", onData);
  request.once("end", done);
  request.once("close", done);
  request.resume();
}

/** The answer a body read stopped on, made once per reader. */
function tooLarge(limit: number): ApiError {
  return new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`);
}

/** The client is gone: the answer goes nowhere, but nothing may act on a truncated body. */
function cutShortError(): ApiError {
  return new ApiError(400, "BadRequest", "the request body was cut short: the client went away");
}

function timedOut(timeoutMs: number): ApiError {
  return new ApiError(408, "Timeout", `the request body did not arrive within ${Math.round(timeoutMs / 1000)}s`);
}

/**
 * Whether the client went away before sending the whole body: an HTTP/2 stream reset (aborted,
 * or closed before its end was read); HTTP/1.1 marks a message received whole as `complete`.
 */
function cutShort(origin: BodyOrigin): boolean {
  if (origin.kind === "http2") return origin.stream.aborted || origin.stream.closed;
  return !origin.message.complete;
}

/**
 * The body reader for one request. Chunks are kept only while the body is within `limit`: past
 * it (or past the deadline) they are dropped at once and the rest of the body is not buffered,
 * so a rejected upload costs no more memory than `limit`, whatever its size.
 */
export function requestBody(origin: BodyOrigin, arrived: number, timeoutMs: number): RequestBody {
  const request = readableOf(origin);
  const headers = origin.kind === "http1" ? origin.message.headers : origin.headers;
  let consumed: Promise<Buffer> | undefined;
  /** Set when reading stopped before the body's end (see `settle`). */
  let abandoned = false;
  return {
    read(limit) {
      consumed ??= new Promise<Buffer>((resolve, reject) => {
        const declared = Number(headers["content-length"] ?? "0");
        if (declared > limit) {
          abandoned = true;
          reject(tooLarge(limit));
          return;
        }
        // The body may have ended before anything read it: Node's HTTP/2 stream emits 'end' as soon
        // as an empty body's END_STREAM is processed (it reads with length 0 on EOF), so a handler
        // that awaits anything before reading would otherwise wait for an 'end' already gone.
        // 'end' follows only the last buffered chunk read, so nothing was sent: the body is empty.
        if (request.readableEnded) {
          if (cutShort(origin)) reject(cutShortError());
          else resolve(Buffer.alloc(0));
          return;
        }
        // Gone before the read (the 'close' this waits for below has been emitted): nothing is left
        // to drain either.
        if (request.destroyed) {
          reject(cutShortError());
          return;
        }
        let chunks: Buffer[] = [];
        let size = 0;
        const stop = (error: ApiError | undefined): void => {
          clearTimeout(timer);
          request.off("data", onData);
          request.off("end", onEnd);
          request.off("error", onCut);
          request.off("close", onCut);
          const body = chunks;
          chunks = [];
          if (error === undefined) {
            resolve(body.length === 1 ? (body[0] as Buffer) : Buffer.concat(body, size));
            return;
          }
          abandoned = true;
          // Nothing reads the stream now: Node stops taking data once its small buffer is full.
          request.pause();
          reject(error);
        };
        const onData = (chunk: Buffer): void => {
          size += chunk.length;
          if (size > limit) stop(tooLarge(limit));
          else chunks.push(chunk);
        };
        const onEnd = (): void => stop(cutShort(origin) ? cutShortError() : undefined);
        // An error, or a close before the end (HTTP/2 closes the request before ending it on a reset).
        const onCut = (): void => stop(cutShortError());
        const timer = setTimeout(() => stop(timedOut(timeoutMs)), Math.max(0, arrived + timeoutMs - Date.now()));
        request.on("data", onData);
        request.once("end", onEnd);
        request.once("error", onCut);
        request.once("close", onCut);
      });
      return consumed;
    },
    settle() {
      if (request.readableEnded) return;
      if (origin.kind === "http2") {
        // Also a body never read (answered first: 415, 403, 429…): Node would reset its stream
        // with NO_ERROR, which its own client never closes while the upload is unsent.
        const stream = origin.stream;
        if (stream.endAfterHeaders || stream.closed || stream.destroyed || (consumed !== undefined && !abandoned)) return;
        drain(origin, arrived + timeoutMs);
        return;
      }
      // HTTP/1.1: Node reads and drops a body nobody read; one the reader stopped on is drained here.
      if (abandoned) drain(origin, arrived + timeoutMs);
    },
  };
}
