import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import type { ApiResponse } from "../request/context.js";
import type { HttpServer } from "./http-server.js";

/** One GET on an HTTP/2 session: status and body. */
function get(session: http2.ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":path": path });
    let status = 0;
    let body = "";
    stream.setEncoding("utf8");
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.on("data", (chunk: string) => {
      body += chunk;
    });
    stream.on("end", () => resolve({ status, body }));
    stream.on("error", reject);
  });
}

describe("--goaway-chance", () => {
  let ca: TestCa;
  let draws: number[] = [];
  let server: HttpServer;
  // "/together" answers once `together.size` requests have arrived, so all are under way at once.
  const together = { size: 0, arrived: 0, all: () => {} };
  const handler = async (context: { request: { path: string; signal: AbortSignal } }): Promise<ApiResponse> => {
    if (context.request.path === "/together") {
      const everyone = new Promise<void>((resolve) => {
        const previous = together.all;
        together.all = () => {
          previous();
          resolve();
        };
      });
      if (++together.arrived === together.size) together.all();
      await everyone;
    }
    if (context.request.path === "/watch") {
      const signal = context.request.signal;
      async function* events(): AsyncGenerator<string> {
        yield "started\n";
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      }
      return { status: 200, headers: { "content-type": "text/plain" }, body: events(), longRunning: true };
    }
    return { status: 200, headers: { "content-type": "text/plain" }, body: "ok" };
  };

  before(async () => {
    ({ ca, server } = await startTlsListener({
      handler,
      goawayChance: 0.5,
      // Draws below 0.5 send GOAWAY; the tests queue the draws they need (none left: no GOAWAY).
      random: () => draws.shift() ?? 1,
    }));
  });
  after(async () => {
    await server?.stop(0);
  });

  const connect = (): http2.ClientHttp2Session => http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });

  it("closes HTTP/2 connections gracefully after some requests; a client that reconnects sees every request succeed", async () => {
    draws = Array.from({ length: 40 }, (_, index) => (index % 4 === 3 ? 0.1 : 0.9));
    let session = connect();
    let sessions = 1;
    let goaways = 0;
    const results: number[] = [];
    const watchGoaway = (current: http2.ClientHttp2Session): void => void current.on("goaway", () => goaways++);
    watchGoaway(session);
    for (let index = 0; index < 40; index++) {
      if (session.closed || session.destroyed || (session as unknown as { goawayReceived?: boolean }).goawayReceived === true) {
        session.close();
        session = connect();
        watchGoaway(session);
        sessions++;
      }
      const result = await get(session, "/api");
      results.push(result.status);
      // Let a GOAWAY sent after this answer arrive before the next request is made.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    session.close();
    assert.deepEqual(
      results.filter((status) => status !== 200),
      [],
    );
    assert.equal(goaways, 10, "one GOAWAY per drawn request");
    assert.equal(sessions, 10, "the client reconnected after each but the last");
  });

  it("streams already under way on the connection finish", async () => {
    draws = Array.from({ length: 10 }, () => 0.1);
    together.size = 10;
    const session = connect();
    const goaway = new Promise<void>((resolve) => session.once("goaway", () => resolve()));
    const results = await Promise.all(Array.from({ length: 10 }, () => get(session, "/together")));
    await goaway;
    session.close();
    assert.deepEqual(
      results.map((result) => result.status),
      Array.from({ length: 10 }, () => 200),
    );
  });

  it("leaves watches (long-running) and HTTP/1.1 alone", async () => {
    draws = [0.1, 0.1, 0.1];
    const session = connect();
    let goaway = false;
    session.on("goaway", () => {
      goaway = true;
    });
    const watch = session.request({ ":path": "/watch" });
    watch.setEncoding("utf8");
    const first = await new Promise<string>((resolve) => watch.once("data", (chunk: string) => resolve(chunk)));
    assert.equal(first, "started\n");
    assert.equal(goaway, false);
    assert.equal(draws.length, 3, "no draw for a long-running request");
    watch.close();
    session.close();
    const status = await new Promise<number>((resolve, reject) => {
      https
        .get({ host: "127.0.0.1", port: server.port, path: "/api", ca: ca.certificate, servername: "localhost", agent: false }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
        .on("error", reject);
    });
    assert.equal(status, 200);
    assert.equal(draws.length, 3, "no draw for HTTP/1.1");
  });
});
