import assert from "node:assert/strict";
import { once } from "node:events";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import type { ApiResponse } from "../request/context.js";
import type { HttpServer } from "./http-server.js";

/** Chunk `index` of a streamed body: 100 KiB of one letter, so order and completeness show in the bytes. */
const chunkOf = (index: number): Buffer => Buffer.alloc(100 * 1024, 0x61 + index);
const CHUNKS = 5;
const WHOLE = Buffer.concat(Array.from({ length: CHUNKS }, (_, index) => chunkOf(index)));

describe("streamed response bodies (lists of 256 items or more)", () => {
  let ca: TestCa;
  let server: HttpServer;
  /** Per request path: whether the body's generator was closed (its `finally` ran) and how far it got. */
  const finished = new Map<string, { chunks: number; closed: boolean }>();
  let release: () => void = () => {};

  const handler = async (context: { request: { path: string } }): Promise<ApiResponse> => {
    const path = context.request.path;
    const state = { chunks: 0, closed: false };
    finished.set(path, state);
    const stalls = path.startsWith("/stall");
    async function* body(): AsyncGenerator<Uint8Array> {
      try {
        for (let index = 0; index < CHUNKS; index++) {
          // "/stall…" holds after its first chunk until the test lets it go (the client has gone by then).
          if (stalls && index === 1) await new Promise<void>((resolve) => (release = resolve));
          state.chunks++;
          yield chunkOf(index);
        }
      } finally {
        state.closed = true;
      }
    }
    return { status: 200, headers: { "content-type": "application/octet-stream" }, body: body() };
  };

  before(async () => {
    ({ ca, server } = await startTlsListener({ handler }));
  });
  after(async () => {
    await server?.stop(0);
  });

  it("sends every chunk, in order, and ends the stream after the last one (HTTP/2, a small window: backpressure)", async () => {
    // A 64 KiB stream window: each 100 KiB chunk waits for the client's window updates.
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost", settings: { initialWindowSize: 65_535 } });
    try {
      const stream = session.request({ ":path": "/h2" });
      const parts: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => parts.push(chunk));
      await once(stream, "end");
      assert.deepEqual(Buffer.concat(parts), WHOLE);
      assert.deepEqual(finished.get("/h2"), { chunks: CHUNKS, closed: true });
    } finally {
      session.close();
    }
  });

  it("sends every chunk, in order, over HTTP/1.1 (chunked coding)", async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      const request = https.get({ host: "127.0.0.1", port: server.port, path: "/h1", ca: ca.certificate, servername: "localhost" }, (response) => {
        const parts: Buffer[] = [];
        response.on("data", (chunk: Buffer) => parts.push(chunk));
        response.once("end", () => resolve(Buffer.concat(parts)));
        response.once("error", reject);
      });
      request.once("error", reject);
    });
    assert.deepEqual(body, WHOLE);
    assert.deepEqual(finished.get("/h1"), { chunks: CHUNKS, closed: true });
  });

  it("closes the body's generator without reading further chunks when the client goes away mid-stream", async () => {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const stream = session.request({ ":path": "/stall" });
      const [first] = (await once(stream, "data")) as [Buffer];
      assert.equal(first[0], 0x61);
      stream.close(http2.constants.NGHTTP2_CANCEL);
      await once(stream, "close");
      // Wait until the server saw the reset (its request's abort), then let the generator go on.
      for (let attempt = 0; attempt < 200 && finished.get("/stall")?.closed !== true; attempt++) {
        release();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const state = finished.get("/stall");
      assert.equal(state?.closed, true, "the generator was closed");
      assert.ok((state?.chunks ?? 0) < CHUNKS, `stopped early (read ${state?.chunks} of ${CHUNKS} chunks)`);
    } finally {
      session.close();
    }
  });
});
