import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import { ApiError } from "../api/errors.js";
import { errorResponse } from "../codec/status.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { HttpServer } from "./http-server.js";
import { DRAIN_LIMIT_BYTES } from "./request-body.js";

const LIMIT = 3 * 1024 * 1024;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly rstCode: number;
}

/** One POST of `body` (no content-length: the server learns the size as it reads) on an HTTP/2 session. */
function post(session: http2.ClientHttp2Session, body: Buffer, path = "/upload"): Promise<Answer> {
  return new Promise((resolve) => {
    const stream = session.request({ ":method": "POST", ":path": path });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A reset with CANCEL after the answer is an error on Node's client: the answer is still whole.
    stream.on("error", () => {});
    // The stream must close: before the fix, an answer to a body over the limit left it open forever.
    stream.on("close", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8"), rstCode: stream.rstCode }));
    stream.end(body);
  });
}

describe("request bodies over the limit", () => {
  let ca: TestCa;
  let server: HttpServer;
  const handler = async (context: RequestContext): Promise<ApiResponse> => {
    try {
      // Answered before the body is read, as a 415 is.
      if (context.request.path === "/unread") return { status: 415, headers: { "content-type": "text/plain" }, body: "unread" };
      const bytes = await context.request.body(LIMIT);
      return { status: 201, headers: { "content-type": "text/plain" }, body: String(bytes.length) };
    } catch (error) {
      return errorResponse(error);
    }
  };

  before(async () => {
    ({ ca, server } = await startTlsListener({ handler }));
  });
  after(async () => {
    await server?.stop(0);
  });

  it("answer 413 over HTTP/2 and the client's stream closes; the session serves the next request (fuzz hang of #20)", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const answers = await Promise.all([post(session, Buffer.alloc(8_000_000, 0x61)), post(session, Buffer.alloc(LIMIT + 1, 0x61))]);
      for (const answer of answers) {
        assert.equal(answer.status, 413);
        assert.equal((JSON.parse(answer.body) as { reason?: string }).reason, "RequestEntityTooLarge");
        // The rest of the body was read and dropped: the stream ended normally.
        assert.equal(answer.rstCode, http2.constants.NGHTTP2_NO_ERROR);
      }
      const next = await post(session, Buffer.from("small"));
      assert.deepEqual([next.status, next.body], [201, "5"]);
    } finally {
      session.destroy();
    }
  });

  it("close the stream of a big body answered before it was read (fuzz hangs on 415s)", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const answer = await post(session, Buffer.alloc(5_000_000, 0x61), "/unread");
      assert.deepEqual([answer.status, answer.body, answer.rstCode], [415, "unread", http2.constants.NGHTTP2_NO_ERROR]);
    } finally {
      session.destroy();
    }
  });

  it("refuse a body past what is drained after the answer by resetting the stream, the answer whole", async () => {
    // The client queues the whole upload: its default 10 MB session memory would refuse it itself.
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost", maxSessionMemory: 256 });
    try {
      const answer = await post(session, Buffer.alloc(LIMIT + DRAIN_LIMIT_BYTES + 4 * 1024 * 1024, 0x61));
      assert.equal(answer.status, 413);
      assert.equal((JSON.parse(answer.body) as { code?: number }).code, 413);
      assert.equal(answer.rstCode, http2.constants.NGHTTP2_CANCEL);
      const next = await post(session, Buffer.from("ok"));
      assert.equal(next.status, 201);
    } finally {
      session.destroy();
    }
  });

  it("answer 413 over HTTP/1.1 and keep the connection for the next request", async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: ca.certificate, servername: "localhost" });
    const send = (body: Buffer): Promise<{ status: number; body: string; socket: unknown }> =>
      new Promise((resolve, reject) => {
        const request = https.request({ host: "127.0.0.1", port: server.port, method: "POST", path: "/upload", agent }, (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), socket: request.socket }));
        });
        request.on("error", reject);
        // Chunked: no content-length, so the limit is found while reading.
        request.write(body);
        request.end();
      });
    try {
      const refused = await send(Buffer.alloc(8_000_000, 0x61));
      assert.equal(refused.status, 413);
      const next = await send(Buffer.from("small"));
      assert.deepEqual([next.status, next.body], [201, "5"]);
      assert.equal(next.socket, refused.socket, "the same connection served both");
    } finally {
      agent.destroy();
    }
  });
});

describe("request bodies read only after they ended", () => {
  let ca: TestCa;
  let server: HttpServer;
  // The handler awaits before it reads, as the pipeline does (authentication, flow control…):
  // by then the body's end has been processed.
  const outcomes: string[] = [];
  const handler = async (context: RequestContext): Promise<ApiResponse> => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    try {
      const bytes = await context.request.body(LIMIT);
      outcomes.push(`read ${bytes.length}`);
      return { status: 201, headers: { "content-type": "text/plain" }, body: `read ${bytes.length}: ${bytes.toString("utf8")}` };
    } catch (error) {
      outcomes.push(`${context.request.path} ${error instanceof ApiError ? error.reason : String(error)}`);
      return errorResponse(error);
    }
  };

  before(async () => {
    // A short body timeout: the read that waited for an 'end' already emitted answered 408 at it.
    ({ ca, server } = await startTlsListener({ handler, limits: { bodyTimeoutMs: 3000 } }));
  });
  after(async () => {
    await server?.stop(0);
  });

  it("an empty HTTP/2 body is read as empty, not waited for until the body timeout (fuzz hang)", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const answers = await Promise.all([post(session, Buffer.alloc(0)), post(session, Buffer.alloc(0), "/other")]);
      for (const answer of answers) assert.deepEqual([answer.status, answer.body], [201, "read 0: "]);
    } finally {
      session.destroy();
    }
  });

  it("a small HTTP/2 body that arrived whole before the read is read whole", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const answer = await post(session, Buffer.from("abc"));
      assert.deepEqual([answer.status, answer.body], [201, "read 3: abc"]);
    } finally {
      session.destroy();
    }
  });

  it("an empty HTTP/1.1 body (content-length 0) is read as empty", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = https.request(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/upload",
          ca: ca.certificate,
          servername: "localhost",
          headers: { "content-length": "0" },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        },
      );
      request.on("error", reject);
      request.end();
    });
    assert.deepEqual([answer.status, answer.body], [201, "read 0: "]);
  });

  it("a body whose stream the client reset before the read fails at once as cut short, not at the body timeout", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const stream = session.request({ ":method": "POST", ":path": "/reset" });
      stream.on("error", () => {});
      stream.write("partial");
      await new Promise((resolve) => setTimeout(resolve, 20));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      // Within the 3 s body timeout: the read did not wait for it.
      for (let waited = 0; !outcomes.some((outcome) => outcome.startsWith("/reset")) && waited < 2500; waited += 25) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.deepEqual(
        outcomes.filter((outcome) => outcome.startsWith("/reset")),
        ["/reset BadRequest"],
      );
    } finally {
      session.destroy();
    }
  });
});
