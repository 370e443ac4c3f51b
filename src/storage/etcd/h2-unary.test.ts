import assert from "node:assert/strict";
import http2 from "node:http2";
import net, { type AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { grpcTimeout, H2Unary, type UnaryResult } from "./h2-unary.js";

/** A plain-text HTTP/2 server standing in for etcd: each path answers as the test says. */
function fakeServer(
  settings: http2.Settings = {},
): Promise<{ url: string; seen: { path: string; timeout: string; body: Buffer }[]; sessions: Set<http2.ServerHttp2Session>; close(): Promise<void> }> {
  const seen: { path: string; timeout: string; body: Buffer }[] = [];
  const server = http2.createServer({ settings });
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {});
    stream.on("end", () => {
      const path = String(headers[":path"]);
      seen.push({ path, timeout: String(headers["grpc-timeout"]), body: Buffer.concat(chunks) });
      if (path === "/echo") {
        // The request's message back, as a gRPC reply with trailers.
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(Buffer.concat(chunks));
      } else if (path === "/fail") {
        // Trailers only, as etcd answers an error; the message is percent-encoded.
        stream.respond(
          { ":status": 200, "content-type": "application/grpc", "grpc-status": "9", "grpc-message": "etcdserver: 100%25 full" },
          { endStream: true },
        );
      } else if (path === "/refuse") {
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      } else if (path === "/reset") {
        stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      }
      // "/hang": never answers.
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        seen,
        sessions,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const session of sessions) session.destroy();
          }),
      });
    });
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on("session", (session) => {
      sessions.add(session);
      session.on("close", () => sessions.delete(session));
    });
  });
}

/** Calls until the session is up (the first calls are `unsent` while it connects). */
async function connected(client: H2Unary, path: string, message: Buffer, timeoutMs = 2000): Promise<UnaryResult> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const result = await client.call(path, message, timeoutMs);
    if (result.kind !== "unsent") return result;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the session never connected");
}

describe("H2Unary (gRPC unary over one kept HTTP/2 connection, framed by hand)", () => {
  let server: Awaited<ReturnType<typeof fakeServer>>;
  let client: H2Unary;
  before(async () => {
    server = await fakeServer();
    client = new H2Unary({ endpoints: [server.url] });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it("answers unsent until its session is connected, so the caller can use the channel meanwhile", async () => {
    const fresh = new H2Unary({ endpoints: [server.url] });
    try {
      assert.deepEqual(await fresh.call("/echo", Buffer.from("x"), 1000), { kind: "unsent" });
    } finally {
      fresh.close();
    }
  });

  it("frames the message with the five-byte gRPC prefix and a grpc-timeout, and reads the reply's message", async () => {
    const message = Buffer.from("a txn request");
    const result = await connected(client, "/echo", message, 1500);
    assert.equal(result.kind, "ok");
    assert.deepEqual(result.kind === "ok" ? result.message : undefined, message);
    const request = server.seen.find((entry) => entry.path === "/echo");
    assert.equal(request?.timeout, "1500m");
    assert.deepEqual(request?.body.subarray(0, 5), Buffer.from([0, 0, 0, 0, message.length]));
  });

  it("reads a trailers-only error status and decodes its percent-encoded message", async () => {
    const result = await connected(client, "/fail", Buffer.from("x"));
    assert.equal(result.kind, "status");
    assert.equal(result.kind === "status" ? result.status.code : undefined, 9);
    assert.equal(result.kind === "status" ? result.status.details : undefined, "etcdserver: 100% full");
  });

  it("answers unsent for a stream the server refused (it was not processed)", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    assert.deepEqual(await client.call("/refuse", Buffer.from("x"), 1000), { kind: "unsent" });
  });

  it("answers UNAVAILABLE for a stream reset after it was sent (it may have been applied)", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    const result = await client.call("/reset", Buffer.from("x"), 1000);
    assert.equal(result.kind === "status" ? result.status.code : undefined, 14);
  });

  it("ends a call at its deadline with DEADLINE_EXCEEDED and stops using the session", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    const result = await client.call("/hang", Buffer.from("x"), 100);
    assert.equal(result.kind === "status" ? result.status.code : undefined, 4);
    // The session is retired: the next calls go elsewhere until it reconnects.
    assert.deepEqual(await client.call("/echo", Buffer.from("x"), 1000), { kind: "unsent" });
  });

  it("holds calls beyond the peer's connection window until it opens the window, then sends them in order", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    // 100 × 2 KiB in flight: three times the 64 KiB a peer grants a new connection.
    const messages = Array.from({ length: 100 }, (_, index) => Buffer.alloc(2048, index));
    const results = await Promise.all(messages.map((message) => client.call("/echo", message, 5000)));
    for (const [index, result] of results.entries()) {
      assert.equal(result.kind, "ok", `call ${index}: ${JSON.stringify(result)}`);
      assert.deepEqual(result.kind === "ok" ? result.message : undefined, messages[index]);
    }
  });

  it("answers unsent for a message larger than the peer's stream window (grpc-js sends it in pieces)", async () => {
    const small = await fakeServer({ initialWindowSize: 1000 });
    const limited = new H2Unary({ endpoints: [small.url] });
    try {
      assert.equal((await connected(limited, "/echo", Buffer.alloc(900))).kind, "ok");
      assert.deepEqual(await limited.call("/echo", Buffer.alloc(2000), 1000), { kind: "unsent" });
    } finally {
      limited.close();
      await small.close();
    }
  });

  it("splits a message into DATA frames no larger than the peer's frame size", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    const message = Buffer.alloc(40_000, 3);
    const result = await client.call("/echo", message, 5000);
    assert.deepEqual(result.kind === "ok" ? result.message : undefined, message);
  });

  it("answers the peer's PINGs (grpc-go measures the connection with them)", async () => {
    await connected(client, "/echo", Buffer.from("x"));
    const session = [...server.sessions][0] as http2.ServerHttp2Session;
    const acknowledged = await new Promise<boolean>((resolve) => {
      const sent = session.ping((error) => resolve(error === null));
      if (!sent) resolve(false);
      setTimeout(() => resolve(false), 2000).unref();
    });
    assert.equal(acknowledged, true);
  });

  it("answers unsent for calls above a GOAWAY's last stream and moves on to a new connection", async () => {
    const going = await fakeServer();
    const leaving = new H2Unary({ endpoints: [going.url] });
    try {
      await connected(leaving, "/echo", Buffer.from("x"));
      const hanging = leaving.call("/hang", Buffer.from("x"), 5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Last processed stream 1 (the first echo): the hanging call's stream 3 was not processed.
      for (const session of going.sessions) session.goaway(http2.constants.NGHTTP2_NO_ERROR, 1);
      assert.deepEqual(await hanging, { kind: "unsent" });
      assert.deepEqual(await leaving.call("/echo", Buffer.from("x"), 1000), { kind: "unsent" });
    } finally {
      leaving.close();
      await going.close();
    }
  });

  it("moves on to a new connection once the last stream id is used (2^31 - 1), instead of answering unsent from then on", async () => {
    const fresh = new H2Unary({ endpoints: [server.url] });
    try {
      await connected(fresh, "/echo", Buffer.from("x"));
      const open = fresh as unknown as { connection: { nextStreamId: number } | undefined };
      assert.ok(open.connection !== undefined);
      open.connection.nextStreamId = 2 ** 31 - 1;
      const last = await fresh.call("/echo", Buffer.from("last"), 1000);
      assert.deepEqual(last.kind === "ok" ? last.message : last, Buffer.from("last"), "the last stream id still carries a call");
      const next = await connected(fresh, "/echo", Buffer.from("next"));
      assert.deepEqual(next.kind === "ok" ? next.message : next, Buffer.from("next"), "a new connection carries the calls after it");
    } finally {
      fresh.close();
    }
  });

  it("sends the calls made in one loop iteration's callbacks in one socket write, not one write per callback", async () => {
    const fresh = new H2Unary({ endpoints: [server.url] });
    const write = net.Socket.prototype.write;
    try {
      await connected(fresh, "/echo", Buffer.from("x"));
      const port = Number(new URL(server.url).port);
      let writes = 0;
      net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
        if (this.remotePort === port) writes++;
        return write.apply(this, args);
      } as net.Socket["write"];
      // Two callbacks of one iteration's check phase, as two requests read in one poll would be.
      const calls = await new Promise<Promise<UnaryResult>[]>((resolve) => {
        const made: Promise<UnaryResult>[] = [];
        setImmediate(() => made.push(fresh.call("/echo", Buffer.from("first"), 1000)));
        setImmediate(() => {
          made.push(fresh.call("/echo", Buffer.from("second"), 1000));
          resolve(made);
        });
      });
      const results = await Promise.all(calls);
      net.Socket.prototype.write = write;
      assert.deepEqual(
        results.map((result) => (result.kind === "ok" ? result.message.toString() : result.kind)),
        ["first", "second"],
      );
      assert.equal(writes, 1, "both calls' frames in one write");
    } finally {
      net.Socket.prototype.write = write;
      fresh.close();
    }
  });

  it("writes grpc-timeout with at most eight digits", () => {
    assert.equal(grpcTimeout(10_000), "10000m");
    assert.equal(grpcTimeout(0.5), "1m");
    assert.equal(grpcTimeout(1e8), "100000S");
    assert.equal(grpcTimeout(1e12), "277778H");
  });

  it("answers unsent when nothing listens at the endpoint", async () => {
    const nowhere = new H2Unary({ endpoints: ["http://127.0.0.1:1"] });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        assert.deepEqual(await nowhere.call("/echo", Buffer.from("x"), 1000), { kind: "unsent" });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      nowhere.close();
    }
  });
});

/** gRPC messages out of a byte stream: whole ones returned, the rest kept. */
function grpcMessages(state: { rest: Buffer }, chunk: Buffer): Buffer[] {
  let data = Buffer.concat([state.rest, chunk]);
  const messages: Buffer[] = [];
  while (data.length >= 5 && data.length >= 5 + data.readUInt32BE(1)) {
    const length = data.readUInt32BE(1);
    messages.push(data.subarray(5, 5 + length));
    data = data.subarray(5 + length);
  }
  state.rest = data;
  return messages;
}

function grpcFrame(message: Buffer): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

describe("H2Unary streaming calls (etcd's Watch on the hand-framed connection)", () => {
  const resets: number[] = [];
  const seenHeaders: http2.IncomingHttpHeaders[] = [];
  let server: http2.Http2Server;
  let url: string;
  const sessions = new Set<http2.ServerHttp2Session>();
  before(async () => {
    server = http2.createServer();
    server.on("session", (session) => {
      sessions.add(session);
      session.on("close", () => sessions.delete(session));
    });
    server.on("stream", (stream, headers) => {
      seenHeaders.push(headers);
      stream.on("error", () => {});
      stream.on("close", () => {
        if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) resets.push(stream.rstCode);
      });
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": headers[":path"] === "/fail-later" ? "14" : "0", "grpc-message": "gone" }));
      const state = { rest: Buffer.alloc(0) };
      // A unary call half-closes after its message: answered, then ended ("/hang": never).
      const hang = headers[":path"] === "/hang";
      stream.on("end", () => {
        if (!hang) stream.end();
      });
      stream.on("data", (chunk: Buffer) => {
        if (hang) return;
        for (const message of grpcMessages(state, chunk)) {
          const text = message.toString();
          if (text === "end") stream.end();
          else if (text.startsWith("flood ")) {
            // `flood N`: N messages of 100 KiB, more than the stream window the client opened (4 MiB).
            for (let index = 0; index < Number(text.slice(6)); index++) stream.write(grpcFrame(Buffer.alloc(100 * 1024, index % 256)));
          } else stream.write(grpcFrame(Buffer.from(`echo ${text}`)));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const session of sessions) session.destroy();
    await new Promise<void>((done) => server.close(() => done()));
  });

  /** A client whose connection is ready, and a stream on it that records what it hears. */
  async function open(path: string, headers = Buffer.alloc(0)) {
    const client = new H2Unary({ endpoints: [url] });
    await client.whenReady(2000);
    const heard: Buffer[] = [];
    let ended: ((status: { code: number; details: string }) => void) | undefined;
    const end = new Promise<{ code: number; details: string }>((resolve) => (ended = resolve));
    let onMessage: (() => void) | undefined;
    const stream = client.stream(path, headers, {
      message: (bytes) => {
        heard.push(Buffer.from(bytes));
        onMessage?.();
      },
      end: (status) => ended?.(status),
    });
    assert.ok(stream !== undefined, "a ready connection takes a stream");
    const until = (count: number) =>
      new Promise<void>((resolve) => {
        onMessage = () => {
          if (heard.length >= count) resolve();
        };
        onMessage();
      });
    return { client, stream, heard, end, until };
  }

  it("carries messages both ways on one stream, with its extra headers, until the peer's trailers end it", async () => {
    const { client, stream, heard, end, until } = await open("/stream", Buffer.from([0x00, 0x09, ...Buffer.from("hasleader"), 0x04, ...Buffer.from("true")]));
    try {
      stream.send(Buffer.from("a"));
      stream.send(Buffer.from("b"));
      await until(2);
      assert.deepEqual(
        heard.map((message) => message.toString()),
        ["echo a", "echo b"],
      );
      assert.equal(seenHeaders.at(-1)?.["hasleader"], "true");
      stream.send(Buffer.from("end"));
      assert.deepEqual(await end, { code: 0, details: "gone", message: "0 gone" });
    } finally {
      client.close();
    }
  });

  it("reads messages split over frames and keeps the stream's window open past its first 4 MiB", async () => {
    const { client, stream, heard, end, until } = await open("/stream");
    try {
      // 60 × 100 KiB = 6 MiB: without WINDOW_UPDATEs on the stream the server stops at 4 MiB.
      stream.send(Buffer.from("flood 60"));
      await until(60);
      assert.equal(heard.length, 60);
      assert.ok(heard.every((message, index) => message.length === 100 * 1024 && message[0] === index % 256));
      stream.send(Buffer.from("end"));
      assert.equal((await end).code, 0);
    } finally {
      client.close();
    }
  });

  it("ends the stream with the status of the peer's error trailers", async () => {
    const { client, stream, end } = await open("/fail-later");
    try {
      stream.send(Buffer.from("end"));
      assert.deepEqual(await end, { code: 14, details: "gone", message: "14 gone" });
    } finally {
      client.close();
    }
  });

  it("ends the stream UNAVAILABLE when its connection goes, and CANCELLED when the client closes", async () => {
    const first = await open("/stream");
    first.stream.send(Buffer.from("x"));
    await first.until(1);
    for (const session of sessions) session.destroy();
    const lost = await first.end;
    assert.equal(lost.code, 14);
    first.client.close();
    const second = await open("/stream");
    second.client.close();
    assert.equal((await second.end).code, 1);
  });

  it("keeps a stream's connection while its keepalive PINGs are answered", async () => {
    const client = new H2Unary({ endpoints: [url], keepalive: { intervalMs: 20, timeoutMs: 100 } });
    await client.whenReady(2000);
    let ended: unknown;
    const heard: string[] = [];
    const stream = client.stream("/stream", Buffer.alloc(0), { message: (bytes) => heard.push(bytes.toString()), end: (status) => (ended = status) });
    try {
      assert.ok(stream !== undefined);
      // Some twenty PINGs, each answered by node:http2.
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(ended, undefined);
      stream.send(Buffer.from("still"));
      for (let wait = 0; wait < 100 && heard.length === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(heard, ["echo still"]);
    } finally {
      client.close();
    }
  });

  it("ends a stream UNAVAILABLE when its connection's keepalive PING goes unanswered (a member gone silent)", async () => {
    // A peer that sends its SETTINGS and then never answers anything.
    const silent = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.on("data", () => {});
      socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const client = new H2Unary({ endpoints: [`http://127.0.0.1:${(silent.address() as AddressInfo).port}`], keepalive: { intervalMs: 20, timeoutMs: 50 } });
    try {
      await client.whenReady(2000);
      const end = new Promise<{ code: number; details: string }>((resolve) => {
        const stream = client.stream("/stream", Buffer.alloc(0), { message: () => {}, end: resolve });
        assert.ok(stream !== undefined, "the silent peer's SETTINGS made the connection ready");
      });
      assert.deepEqual(await end, { code: 14, details: "keepalive ping not answered", message: "14 UNAVAILABLE: keepalive ping not answered" });
    } finally {
      client.close();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("keeps a stream open when a unary call on its connection passes its deadline (new calls go to a new connection)", async () => {
    const { client, stream, heard, end, until } = await open("/stream");
    let ended: { code: number } | undefined;
    void end.then((status) => (ended = status));
    try {
      const result = await client.call("/hang", Buffer.from("x"), 100);
      assert.equal(result.kind === "status" ? result.status.code : undefined, 4);
      assert.deepEqual(await client.call("/stream", Buffer.from("x"), 1000), { kind: "unsent" });
      // A slow call says nothing of the watch beside it: it still carries messages both ways.
      stream.send(Buffer.from("after"));
      await Promise.race([until(1), new Promise((resolve) => setTimeout(resolve, 1000))]);
      assert.equal(ended, undefined, `the stream ended: ${JSON.stringify(ended)}`);
      assert.deepEqual(
        heard.map((message) => message.toString()),
        ["echo after"],
      );
      stream.send(Buffer.from("end"));
      assert.equal((await end).code, 0);
    } finally {
      client.close();
    }
  });

  it("ends a stream left on a retired connection CANCELLED when the client closes", async () => {
    const { client, end } = await open("/stream");
    const result = await client.call("/hang", Buffer.from("x"), 100);
    assert.equal(result.kind === "status" ? result.status.code : undefined, 4);
    // The connection is retired (the stream stays on it); the next one is being made.
    await client.call("/stream", Buffer.from("x"), 1000);
    client.close();
    const status = await Promise.race([end, new Promise((resolve) => setTimeout(() => resolve("no end"), 1000))]);
    assert.deepEqual(status, { code: 1, details: "Cancelled on client", message: "1 CANCELLED: Cancelled on client" });
  });

  it("cancels a stream with RST_STREAM CANCEL and calls its handlers no more", async () => {
    const { client, stream, heard, until } = await open("/stream");
    try {
      stream.send(Buffer.from("x"));
      await until(1);
      const before = resets.length;
      stream.cancel();
      stream.send(Buffer.from("y"));
      for (let wait = 0; wait < 100 && resets.length === before; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(resets.slice(before), [http2.constants.NGHTTP2_CANCEL]);
      assert.equal(heard.length, 1);
      // The connection still carries calls.
      const after = await client.call("/stream", Buffer.from("z"), 2000);
      assert.equal(after.kind === "ok" ? after.message.toString() : after.kind, "echo z");
    } finally {
      client.close();
    }
  });
});

/**
 * A peer written frame by frame (node:http2 sends WINDOW_UPDATEs of its own): it grants a tiny
 * stream window in its first SETTINGS, and records the DATA frames it gets per stream.
 */
const SETTINGS_INITIAL_WINDOW_SIZE = 4;
const SETTINGS_MAX_FRAME_SIZE = 5;

function rawPeer(first: readonly [id: number, value: number]) {
  const received: { stream: number; length: number }[] = [];
  const sockets = new Set<net.Socket>();
  const header = (length: number, type: number, flags: number, stream: number) => {
    const out = Buffer.alloc(9);
    out.writeUIntBE(length, 0, 3);
    out[3] = type;
    out[4] = flags;
    out.writeUInt32BE(stream, 5);
    return out;
  };
  const settings = (id: number, value: number) => {
    const payload = Buffer.alloc(6);
    payload.writeUInt16BE(id, 0);
    payload.writeUInt32BE(value, 2);
    return Buffer.concat([header(6, 4, 0, 0), payload]);
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let data = Buffer.alloc(0);
    let prefaceSeen = false;
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (!prefaceSeen) {
        if (data.length < 24) return;
        data = data.subarray(24);
        prefaceSeen = true;
        socket.write(settings(...first));
      }
      while (data.length >= 9 && data.length >= 9 + data.readUIntBE(0, 3)) {
        const length = data.readUIntBE(0, 3);
        const type = data[3] as number;
        const stream = data.readUInt32BE(5) & 0x7fffffff;
        if (type === 0) received.push({ stream, length });
        data = data.subarray(9 + length);
      }
    });
  });
  return {
    received,
    listen: () => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    /** Raises the initial stream window mid-stream, without any WINDOW_UPDATE. */
    raise: (window: number) => {
      for (const socket of sockets) socket.write(settings(SETTINGS_INITIAL_WINDOW_SIZE, window));
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

describe("H2Unary streaming calls: the peer's SETTINGS_INITIAL_WINDOW_SIZE", () => {
  it("sends a stream's held messages when the peer raises the initial window mid-stream (no WINDOW_UPDATE follows)", async () => {
    const peer = rawPeer([SETTINGS_INITIAL_WINDOW_SIZE, 10]);
    const client = new H2Unary({ endpoints: [await peer.listen()] });
    try {
      await client.whenReady(2000);
      const stream = client.stream("/stream", Buffer.alloc(0), { message: () => {}, end: () => {} });
      assert.ok(stream !== undefined, "a ready connection takes a stream");
      // 5 + 20 bytes: more than the 10 the peer's window allows, so it is held.
      stream.send(Buffer.alloc(20, 1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(peer.received, []);
      peer.raise(1000);
      for (let wait = 0; wait < 100 && peer.received.length === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(peer.received, [{ stream: 1, length: 25 }]);
    } finally {
      client.close();
      await peer.close();
    }
  });
});

describe("H2Unary: a peer's SETTINGS out of range", () => {
  it("does not take calls on a connection whose peer sets SETTINGS_MAX_FRAME_SIZE below 2^14 (a frame size of 0 looped forever)", async () => {
    const peer = rawPeer([SETTINGS_MAX_FRAME_SIZE, 0]);
    const client = new H2Unary({ endpoints: [await peer.listen()] });
    try {
      await client.whenReady(300);
      // Without the check the connection is ready and a message sent on it never leaves the splitting loop.
      assert.equal(client.stream("/stream", Buffer.alloc(0), { message: () => {}, end: () => {} }), undefined);
      assert.deepEqual(await client.call("/echo", Buffer.from("x"), 1000), { kind: "unsent" });
    } finally {
      client.close();
      await peer.close();
    }
  });
});
