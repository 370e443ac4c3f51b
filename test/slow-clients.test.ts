// Slow and idle clients (issue #20): headers trickled (slowloris), a body trickled byte by byte,
// idle connections past --max-connections, and a watch that never reads. Each is bounded by the
// listener's limits instead of holding a connection or memory for as long as the client likes.
import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startCli, type CliServer } from "./helpers/cli.js";
import { configMap, connectHttp2, credentialsFromKubeconfig, request, type Credentials } from "./helpers/http.js";
import { makeTempDir, removeDir } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const MAX_CONNECTIONS = 30;

describe("slow and idle clients", () => {
  const dataDir = makeTempDir("orch-slow-");
  let cli: CliServer;
  let credentials: Credentials;
  let port: number;
  const timers: NodeJS.Timeout[] = [];
  before(async () => {
    cli = await startCli(
      [
        "--data-dir",
        dataDir,
        "--secure-port",
        "0",
        "--max-connections",
        String(MAX_CONNECTIONS),
        "--read-header-timeout",
        "1s",
        "--request-body-timeout",
        "2s",
        "--tls-handshake-timeout",
        "1s",
      ],
      60_000,
    );
    credentials = credentialsFromKubeconfig(readFileSync(join(dataDir, "admin.kubeconfig"), "utf8"));
    port = Number(new URL(credentials.url).port);
  });
  after(async () => {
    for (const timer of timers) clearInterval(timer);
    await cli.stop("SIGKILL");
    removeDir(dataDir);
  });

  /** A TLS connection speaking HTTP/1.1 with the admin identity; resolves once the handshake is done. */
  function connectHttp1(): Promise<tls.TLSSocket> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host: "127.0.0.1",
        port,
        ca: credentials.ca,
        cert: credentials.cert,
        key: credentials.key,
        ALPNProtocols: ["http/1.1"],
        servername: "localhost",
      });
      socket.once("secureConnect", () => resolve(socket));
      socket.once("error", reject);
    });
  }

  /** Resolves with what the server sent once it closes the connection (the test's deadline fails a hang). */
  function closedByServer(socket: net.Socket): Promise<string> {
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    socket.on("error", () => {});
    return new Promise((resolve) => socket.once("close", () => resolve(received)));
  }

  it("closes an HTTP/1.1 connection whose headers trickle in (slowloris) after the header timeout", async () => {
    const socket = await connectHttp1();
    const closed = closedByServer(socket);
    socket.write("GET /version HTTP/1.1\r\nHost: localhost\r\n");
    let count = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${count++}: a\r\n`);
    }, 100);
    timers.push(timer);
    const received = await closed;
    clearInterval(timer);
    assert.match(received, /^$|^HTTP\/1\.1 408/, `a 408 or a bare close, never a served request: ${received.slice(0, 80)}`);
  });

  it("answers 408 to an HTTP/2 body trickled byte by byte, and the session serves other requests meanwhile", async () => {
    const session = http2.connect(credentials.url, { ca: credentials.ca, cert: credentials.cert, key: credentials.key });
    session.on("error", () => {});
    const stream = session.request({ ":method": "POST", ":path": CONFIGMAPS, "content-type": "application/json", "content-length": "1000" });
    stream.on("error", () => {});
    const response = new Promise<{ status: number; body: string }>((resolve) => {
      let status = 0;
      let body = "";
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (body += chunk));
      // The answer is whole at the end of its data; the client's side of the stream is still open.
      stream.on("end", () => resolve({ status, body }));
      stream.on("close", () => resolve({ status, body }));
    });
    const timer = setInterval(() => {
      if (!stream.destroyed && !stream.writableEnded) stream.write("{");
    }, 100);
    timers.push(timer);
    const client = await connectHttp2(credentials);
    assert.equal((await client.request("GET", "/version")).status, 200, "other clients are served meanwhile");
    await client.close();
    const answer = await response;
    clearInterval(timer);
    assert.equal(answer.status, 408, answer.body);
    assert.equal((JSON.parse(answer.body) as { reason: string }).reason, "Timeout");
    session.destroy();
  });

  it("closes an HTTP/1.1 request whose body trickles in after the body timeout", async () => {
    const socket = await connectHttp1();
    const closed = closedByServer(socket);
    socket.write(`POST ${CONFIGMAPS} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write("{");
    }, 100);
    timers.push(timer);
    const received = await closed;
    clearInterval(timer);
    assert.match(received, /^$|^HTTP\/1\.1 408/, `a 408 or a bare close, never a served request: ${received.slice(0, 120)}`);
  });

  it(`drops connections past --max-connections ${MAX_CONNECTIONS} and closes idle ones at the handshake timeout, then serves again`, async () => {
    const sockets = Array.from({ length: MAX_CONNECTIONS + 10 }, () => net.connect({ host: "127.0.0.1", port }));
    const closes = sockets.map((socket) => closedByServer(socket));
    // Every one of them is closed by the server: past the cap at once, the others when their handshake times out.
    await Promise.all(closes);
    const answer = await request(credentials, "GET", "/version");
    assert.equal(answer.status, 200, answer.body);
  });

  it("ends a watch whose client never reads once its queue passes the byte limit, and keeps serving", async () => {
    const start = await request(credentials, "GET", CONFIGMAPS);
    const revision = (JSON.parse(start.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const url = new URL(`${CONFIGMAPS}?watch=1&resourceVersion=${revision}`, credentials.url);
    const response = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
      const req = https.get(url, { ca: credentials.ca, cert: credentials.cert, key: credentials.key, agent: false }, resolve);
      req.on("error", reject);
    });
    assert.equal(response.statusCode, 200);
    response.pause();
    // 96 objects of 512 KiB: 48 MiB of events, more than the watcher's 32 MiB queue and the socket buffers.
    const client = await connectHttp2(credentials);
    const payload = "w".repeat(512 * 1024);
    for (let index = 0; index < 96; index += 8) {
      const batch = Array.from({ length: 8 }, (_, offset) =>
        client.request("POST", CONFIGMAPS, { body: configMap(`slow-watch-${index + offset}`, { payload }) }),
      );
      for (const answer of await Promise.all(batch)) assert.equal(answer.status, 201, answer.body);
    }
    assert.equal((await client.request("GET", "/version")).status, 200);
    await client.close();
    let lines = 0;
    let tail = "";
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      const text = tail + chunk;
      const parts = text.split("\n");
      tail = parts.pop() ?? "";
      lines += parts.length;
    });
    const ended = new Promise<void>((resolve) => {
      response.once("end", () => resolve());
      response.once("close", () => resolve());
    });
    response.resume();
    await ended;
    await waitFor(() => response.complete || response.destroyed, { what: "the watch response to finish" });
    assert.ok(lines < 96, `the server ended the watch before delivering every event (${lines} of 96)`);
  });
});
