// HTTP/1.1 keep-alive through the real TLS listener: a large request that arrives while the
// previous response's write is still held up by backpressure must be answered, not reset.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import tls from "node:tls";
import { generateCa, issueServing } from "../src/cli/pki-generate.js";
import type { ApiResponse, Handler } from "../src/request/context.js";
import { startHttpServer, type HttpServer } from "../src/server/http-server.js";

/** Larger than loopback's socket buffers, so the write stays pending while the client does not read. */
const RESPONSE_BYTES = 16 * 1024 * 1024;
/** More than a socket's write high-water mark (16 KiB). */
const QUEUED_BYTES = 64 * 1024;
/** Many TLS records: one socket read on the server decrypts several of them at once. */
const REQUEST_BYTES = 3 * 1024 * 1024;

interface ParsedResponse {
  readonly status: number;
  readonly body: Buffer;
}

/** Responses read off one HTTP/1.1 connection (Content-Length framing only, as the handler answers). */
function parseResponses(bytes: Buffer): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let offset = 0;
  for (;;) {
    const headerEnd = bytes.indexOf("\r\n\r\n", offset);
    if (headerEnd < 0) return responses;
    const head = bytes.subarray(offset, headerEnd).toString("latin1");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? "0");
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "-1");
    if (length < 0 || headerEnd + 4 + length > bytes.length) return responses;
    responses.push({ status, body: bytes.subarray(headerEnd + 4, headerEnd + 4 + length) });
    offset = headerEnd + 4 + length;
  }
}

describe("HTTP/1.1 keep-alive listener", () => {
  let server: HttpServer;
  /** Resolves when the listener hands the handler a PUT. */
  let putArrived: () => void = () => {};
  /** Holds GET /held until released. */
  let release: () => void = () => {};
  /** Resolves when the handler answers GET /queued. */
  let queuedAnswered: () => void = () => {};
  const sizes: Record<string, number> = { "/large": RESPONSE_BYTES, "/queued": QUEUED_BYTES, "/held": 1024 };
  const handler: Handler = async ({ request }): Promise<ApiResponse> => {
    if (request.path === "/held") await new Promise<void>((resolve) => (release = resolve));
    if (request.path === "/queued") queuedAnswered();
    if (request.method === "GET")
      return { status: 200, headers: { "content-type": "application/octet-stream" }, body: Buffer.alloc(sizes[request.path] ?? 0, 0x61) };
    putArrived();
    const body = await request.body(REQUEST_BYTES * 2);
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ received: body.length }) };
  };

  before(async () => {
    const ca = await generateCa();
    const serving = await issueServing(ca, []);
    server = await startHttpServer({ tls: { certificate: serving.certificate, key: serving.key }, host: "127.0.0.1", port: 0, handler });
  });

  after(async () => {
    await server.stop(1000);
  });

  /** Reads responses off `socket` until `count` are complete, then ends it; resolves on close. */
  function readResponses(socket: tls.TLSSocket, count: number, minimumBytes: number, received: Buffer[]): Promise<ParsedResponse[]> {
    let total = received.reduce((sum, chunk) => sum + chunk.length, 0);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      total += chunk.length;
      // Parse only once the large bodies are in: all responses can be complete from then on.
      if (total > minimumBytes && parseResponses(Buffer.concat(received)).length === count) socket.end();
    });
    socket.resume();
    return new Promise((resolve) => socket.once("close", () => resolve(parseResponses(Buffer.concat(received)))));
  }

  async function connect(): Promise<tls.TLSSocket> {
    const socket = tls.connect({ host: "127.0.0.1", port: server.port, ALPNProtocols: ["http/1.1"], rejectUnauthorized: false });
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
    assert.equal(socket.alpnProtocol, "http/1.1");
    return socket;
  }

  function put(size: number): Buffer {
    return Buffer.concat([
      Buffer.from(`PUT /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`),
      Buffer.alloc(size, 0x62),
    ]);
  }

  it("answers a large request sent while a large response is still under backpressure", async () => {
    const socket = await connect();
    const received: Buffer[] = [];
    const firstBytes = new Promise<void>((resolve) => {
      socket.once("data", (chunk: Buffer) => {
        // Stop reading: the server's write of the large response stays pending.
        socket.pause();
        received.push(chunk);
        resolve();
      });
    });
    socket.write("GET /large HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await firstBytes;
    const arrived = new Promise<void>((resolve) => {
      putArrived = resolve;
    });
    socket.write(put(REQUEST_BYTES));
    // The server has parsed the PUT's headers while its GET response was still pending.
    await arrived;
    const responses = await readResponses(socket, 2, RESPONSE_BYTES, received);
    assert.equal(responses.length, 2, "the connection was closed before both responses arrived");
    assert.equal(responses[0]?.status, 200);
    assert.equal(responses[0]?.body.length, RESPONSE_BYTES);
    assert.equal(responses[1]?.status, 200);
    assert.deepEqual(JSON.parse(responses[1]?.body.toString("utf8") ?? "null"), { received: REQUEST_BYTES });
  });

  it("answers a large pipelined request that arrives behind a queued response", async () => {
    const socket = await connect();
    const answered = new Promise<void>((resolve) => {
      queuedAnswered = resolve;
    });
    socket.write("GET /held HTTP/1.1\r\nHost: localhost\r\n\r\nGET /queued HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await answered;
    // The listener writes the answer as soon as the handler returns: it waits, buffered, behind
    // the held response when the PUT arrives.
    await new Promise((resolve) => setImmediate(resolve));
    const arrived = new Promise<void>((resolve) => {
      putArrived = resolve;
    });
    socket.write(put(REQUEST_BYTES));
    await arrived;
    release();
    const responses = await readResponses(socket, 3, QUEUED_BYTES, []);
    assert.equal(responses.length, 3, "the connection was closed before every response arrived");
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 200, 200],
    );
    assert.equal(responses[1]?.body.length, QUEUED_BYTES);
    assert.deepEqual(JSON.parse(responses[2]?.body.toString("utf8") ?? "null"), { received: REQUEST_BYTES });
  });
});
