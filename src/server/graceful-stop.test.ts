import assert from "node:assert/strict";
import http2 from "node:http2";
import { describe, it } from "node:test";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import type { ApiResponse } from "../request/context.js";

/** One GET on an HTTP/2 session: its status, or the error that ended it. */
function get(session: http2.ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":path": path });
    let status = 0;
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.resume();
    stream.on("end", () => resolve(status));
    stream.on("error", reject);
  });
}

describe("stop(graceMs)", () => {
  it("waits for requests under way, up to the grace period, and no longer once they are done", async () => {
    let release = (): void => {};
    let arrived = (): void => {};
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const handler = async (context: { request: { path: string } }): Promise<ApiResponse> => {
      if (context.request.path === "/slow") {
        arrived();
        await new Promise<void>((resolve) => (release = resolve));
      }
      return { status: 200, headers: { "content-type": "text/plain" }, body: "ok" };
    };
    const { ca, server } = await startTlsListener({ handler });
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    session.on("error", () => {});
    try {
      assert.equal(await get(session, "/fast"), 200);
      const slow = get(session, "/slow");
      await arrival;
      let stopped = false;
      const stopping = server.stop(30_000).then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(stopped, false, "stop returned while a request was under way");
      release();
      assert.equal(await slow, 200);
      const started = performance.now();
      await stopping;
      assert.ok(performance.now() - started < 5_000, "stop kept waiting after the last request ended");
    } finally {
      session.destroy();
      await server.stop(0);
    }
  });

  it("gives up on a request that outlasts the grace period", async () => {
    let arrived = (): void => {};
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const handler = async (): Promise<ApiResponse> => {
      arrived();
      await new Promise<void>(() => {});
      return { status: 200, headers: {}, body: "" };
    };
    const { ca, server } = await startTlsListener({ handler });
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    session.on("error", () => {});
    try {
      const hung = get(session, "/hang").catch(() => 0);
      await arrival;
      const started = performance.now();
      await server.stop(300);
      const waited = performance.now() - started;
      assert.ok(waited >= 250 && waited < 5_000, `stop waited ${waited} ms for a 300 ms grace period`);
      await hung;
    } finally {
      session.destroy();
    }
  });
});
