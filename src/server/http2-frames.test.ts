import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import tls from "node:tls";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import type { ApiResponse } from "../request/context.js";
import type { HttpServer } from "./http-server.js";

const DATA = 0x0;
const HEADERS = 0x1;
const SETTINGS = 0x4;
const WINDOW_UPDATE = 0x8;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;

interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly stream: number;
  readonly payload: Buffer;
}

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** A header block of literal fields without indexing or Huffman coding (names and values under 127 bytes). */
function headerBlock(fields: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(
    fields.map(([name, value]) => Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)])),
  );
}

/**
 * A bare HTTP/2 client over TLS that sees the frames themselves (Node's client hides how a
 * response ends): one GET per stream, answered frames collected per stream until END_STREAM.
 */
async function framesOf(port: number, ca: string, paths: readonly string[]): Promise<Map<number, Frame[]>> {
  const socket = tls.connect({ host: "127.0.0.1", port, ca, servername: "localhost", ALPNProtocols: ["h2"] });
  await once(socket, "secureConnect");
  assert.equal(socket.alpnProtocol, "h2");
  const settings = Buffer.alloc(6);
  settings.writeUInt16BE(0x4, 0);
  settings.writeUInt32BE(1 << 20, 2);
  const increment = Buffer.alloc(4);
  increment.writeUInt32BE(1 << 24, 0);
  socket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame(SETTINGS, 0, 0, settings), frame(WINDOW_UPDATE, 0, 0, increment)]));
  const byStream = new Map<number, Frame[]>();
  const ended = new Set<number>();
  let pending = Buffer.alloc(0);
  const done = new Promise<void>((resolve, reject) => {
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const received: Frame = {
          type: pending[3] ?? 0,
          flags: pending[4] ?? 0,
          stream: pending.readUInt32BE(5) & 0x7fffffff,
          payload: pending.subarray(9, 9 + length),
        };
        pending = pending.subarray(9 + length);
        if (received.type === SETTINGS && (received.flags & 0x1) === 0) socket.write(frame(SETTINGS, 0x1, 0, Buffer.alloc(0)));
        if (received.stream === 0) continue;
        byStream.set(received.stream, [...(byStream.get(received.stream) ?? []), received]);
        if ((received.type === DATA || received.type === HEADERS) && (received.flags & END_STREAM) !== 0) ended.add(received.stream);
        if (ended.size === paths.length) resolve();
      }
    });
  });
  paths.forEach((path, index) => {
    const block = headerBlock([
      [":method", "GET"],
      [":scheme", "https"],
      [":authority", "localhost"],
      [":path", path],
    ]);
    socket.write(frame(HEADERS, END_STREAM | END_HEADERS, 1 + 2 * index, block));
  });
  try {
    await done;
  } finally {
    socket.destroy();
  }
  return byStream;
}

describe("HTTP/2 answers through the core stream API", () => {
  let ca: TestCa;
  let server: HttpServer;

  const handler = async (context: { request: { path: string } }): Promise<ApiResponse> => {
    if (context.request.path === "/small") return { status: 200, headers: { "content-type": "application/json" }, body: '{"kind":"Status"}' };
    async function* body(): AsyncGenerator<Uint8Array> {
      for (let index = 0; index < 3; index++) yield Buffer.alloc(10_000, 0x61 + index);
    }
    return { status: 200, headers: { "content-type": "application/json" }, body: body() };
  };

  before(async () => {
    ({ ca, server } = await startTlsListener({ handler }));
  });
  after(async () => {
    await server?.stop(0);
  });

  it("ends each answer on its last DATA frame: no empty END_STREAM frame after it (Node's compatibility layer waits for trailers and sends one)", async () => {
    const streams = await framesOf(server.port, ca.certificate, ["/small", "/streamed"]);
    for (const [stream, bytes] of [
      [1, '{"kind":"Status"}'.length],
      [3, 30_000],
    ] as const) {
      const frames = streams.get(stream) ?? [];
      assert.equal(frames[0]?.type, HEADERS, `stream ${stream} starts with its headers`);
      const data = frames.filter((received) => received.type === DATA);
      assert.equal(
        data.reduce((sum, received) => sum + received.payload.length, 0),
        bytes,
        `stream ${stream}: the whole body`,
      );
      const last = frames.at(-1);
      assert.equal(last?.type, DATA, `stream ${stream} ends with a DATA frame`);
      assert.ok((last.flags & END_STREAM) !== 0, `stream ${stream}: END_STREAM on the last frame`);
      assert.ok(last.payload.length > 0, `stream ${stream}: its last DATA frame carries body bytes, not an empty end`);
    }
  });
});
