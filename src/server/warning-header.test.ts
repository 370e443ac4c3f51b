import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import { warningHeaderValues } from "../request/context.js";
import type { HttpServer } from "./http-server.js";

const WARNINGS = ['unknown field "spec.名前"', "café", "tab\tand del\u007f", "plain"];
const EXPECTED = ['299 - "unknown field \\"spec.名前\\""', '299 - "café"', '299 - "tab\\tand del\\u007f"', '299 - "plain"'];
/** HTTP/1.1 (Node) cannot send a character above U+00FF: those come escaped, the rest as UTF-8. */
const EXPECTED_HTTP1 = ['299 - "unknown field \\"spec.\\\\u540d\\\\u524d\\""', '299 - "café"', '299 - "tab\\tand del\\u007f"', '299 - "plain"'];

/** Header values as the client got them: bytes read one per character, taken as UTF-8 (client-go reads them so). */
function utf8(values: string | string[] | undefined): string[] {
  const list = values === undefined ? [] : Array.isArray(values) ? values : values.split(", ");
  return list.map((value) => Buffer.from(value, "latin1").toString("utf8"));
}

describe("Warning headers with characters outside printable ASCII", () => {
  let ca: TestCa;
  let server: HttpServer;
  before(async () => {
    ({ ca, server } = await startTlsListener({
      handler: async () => ({ status: 201, headers: { "content-type": "application/json", warning: warningHeaderValues({ warnings: WARNINGS }) }, body: "{}" }),
    }));
  });
  after(async () => {
    await server?.stop(0);
  });

  it("reach an HTTP/1.1 client with the answer's own status (was a 500), as UTF-8 but for characters above U+00FF", async () => {
    const answer = await new Promise<{ status: number; warning: string[] }>((resolve, reject) => {
      https
        .get({ host: "127.0.0.1", port: server.port, path: "/x", ca: ca.certificate, servername: "localhost" }, (response) => {
          response.resume();
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              warning: response.rawHeaders.filter((_, index, raw) => index % 2 === 1 && raw[index - 1]?.toLowerCase() === "warning"),
            }),
          );
        })
        .on("error", reject);
    });
    assert.deepEqual({ status: answer.status, warning: utf8(answer.warning) }, { status: 201, warning: EXPECTED_HTTP1 });
  });

  it("reach an HTTP/2 client whole, as UTF-8", async () => {
    const client = http2.connect(`https://127.0.0.1:${server.port}`, { ca: ca.certificate, servername: "localhost" });
    try {
      const request = client.request({ ":path": "/x" });
      const [status, raw] = await new Promise<[number, string[]]>((resolve) => {
        request.on("response", (_headers: unknown, _flags: unknown, rawHeaders: string[]) => {
          resolve([0, rawHeaders]);
        });
      });
      request.resume();
      await new Promise((resolve) => request.on("close", resolve));
      const warning = raw.filter((_, index) => index % 2 === 1 && raw[index - 1] === "warning");
      const statusLine = raw[raw.indexOf(":status") + 1];
      assert.deepEqual({ status: Number(statusLine ?? status), warning: utf8(warning) }, { status: 201, warning: EXPECTED });
    } finally {
      client.close();
    }
  });
});
