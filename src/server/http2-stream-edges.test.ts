import assert from "node:assert/strict";
import http2 from "node:http2";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { HttpServer } from "./http-server.js";

/** Whether the request's signal fired within 3 s (the listener aborts it when the client goes away). */
function clientGone(context: RequestContext): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 3000);
    context.request.signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      { once: true },
    );
  });
}

async function get(port: number, ca: string, path: string): Promise<{ status: number; body: string }> {
  const client = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: "localhost" });
  try {
    const request = client.request({ ":path": path });
    let status = 0;
    request.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    let body = "";
    request.setEncoding("utf8");
    for await (const chunk of request) body += chunk;
    return { status, body };
  } finally {
    client.close();
  }
}

describe("HTTP/2 streams the client resets before their answer", () => {
  let ca: TestCa;
  let server: HttpServer;
  const rejections: unknown[] = [];
  const errors: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    rejections.push(reason);
  };
  let answered: () => void = () => {};
  /** Whether the /slow handler saw its client go away; the requests /post served. */
  let sawAbort: boolean | undefined;
  const posted: RequestContext["request"][] = [];

  const handler = async (context: RequestContext): Promise<ApiResponse> => {
    const path = context.request.path;
    if (path === "/slow") {
      sawAbort = await clientGone(context);
      setImmediate(answered);
      return { status: 200, headers: { "content-type": "application/json" }, body: "{}" };
    }
    if (path === "/upload") {
      // The body is cut short by the reset: the read fails (400) and the listener's fallback answers.
      try {
        await context.request.body(1 << 20);
      } finally {
        setImmediate(answered);
      }
      return { status: 201, headers: {}, body: "{}" };
    }
    if (path === "/post") {
      posted.push(context.request);
      await context.request.body(1 << 20);
      return { status: 201, headers: { "content-type": "text/plain" }, body: "created" };
    }
    return { status: 200, headers: { "content-type": "text/plain" }, body: "ok" };
  };

  before(async () => {
    process.on("unhandledRejection", onRejection);
    ({ ca, server } = await startTlsListener({ handler, onError: (error) => errors.push(error) }));
  });
  after(async () => {
    process.off("unhandledRejection", onRejection);
    await server?.stop(0);
  });

  for (const [path, upload] of [
    ["/slow", false],
    ["/upload", true],
  ] as const) {
    it(`${path}: the answer made after the reset goes nowhere, without an error or an unhandled rejection`, async () => {
      rejections.length = 0;
      errors.length = 0;
      const done = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const client = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
      const request = client.request({ ":path": path, ":method": upload ? "POST" : "GET" });
      request.on("error", () => {});
      if (upload) request.write(Buffer.alloc(1000, 0x61));
      else request.end();
      // Reset once the server has the stream.
      await new Promise((resolve) => setTimeout(resolve, 50));
      request.close(http2.constants.NGHTTP2_CANCEL);
      await done;
      // The listener's own promise settles a turn or two after the handler's answer.
      await new Promise((resolve) => setTimeout(resolve, 50));
      client.close();
      assert.deepEqual(
        rejections.map((reason) => String(reason)),
        [],
        "no unhandled rejection (Node 20 ends the process on one)",
      );
      assert.deepEqual(
        errors.map((error) => String(error)).filter((text) => !text.includes("cut short")),
        [],
        "nothing reported but the cut-short body",
      );
      assert.deepEqual(await get(server.port, ca.certificate, "/next"), { status: 200, body: "ok" }, "the server still answers");
      if (!upload) assert.equal(sawAbort, true, "a stream reset before its answer aborts the request's signal (the client went away)");
    });
  }

  it("a request whose body was read and whose answer went out whole is not aborted when its stream closes", async () => {
    posted.length = 0;
    const client = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      for (const size of [10, 200_000]) {
        const request = client.request({ ":path": "/post", ":method": "POST" });
        request.resume();
        request.end(Buffer.alloc(size, 0x61));
        await new Promise((resolve) => request.on("close", resolve));
      }
    } finally {
      client.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      posted.map((request) => request.aborted),
      [false, false],
    );
  });
});
