import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import type { TestCa } from "../../test/helpers/certs.js";
import { startTlsListener } from "../../test/helpers/tls-listener.js";
import { ApiError } from "../api/errors.js";
import { addResponseHeader, chain } from "../request/context.js";
import { auditIdFilter } from "./filters/audit-id.js";
import { errorFunnel } from "./filters/error-funnel.js";
import type { HttpServer } from "./http-server.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Status, and the headers of interest, of one GET over HTTP/1.1 or HTTP/2. */
async function get(port: number, ca: string, path: string, protocol: "h1" | "h2"): Promise<{ status: number; headers: Record<string, string | undefined> }> {
  const pick = (headers: Record<string, unknown>): Record<string, string | undefined> => {
    const value = (name: string): string | undefined => (typeof headers[name] === "string" ? (headers[name] as string) : undefined);
    return { "audit-id": value("audit-id"), "x-orch-pf-flowschema-uid": value("x-orch-pf-flowschema-uid"), "content-type": value("content-type") };
  };
  if (protocol === "h1") {
    return new Promise((resolve, reject) => {
      https
        .get({ host: "127.0.0.1", port, path, ca, servername: "localhost", agent: false }, (response) => {
          response.resume();
          response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: pick(response.headers) }));
        })
        .on("error", reject);
    });
  }
  const client = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: "localhost" });
  try {
    const request = client.request({ ":path": path });
    const headers = await new Promise<http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader>((resolve, reject) => {
      request.on("response", resolve);
      request.on("error", reject);
    });
    request.resume();
    await new Promise((resolve) => request.on("close", resolve));
    return { status: Number(headers[":status"]), headers: pick(headers as Record<string, unknown>) };
  } finally {
    client.close();
  }
}

describe("a request's own response headers (RequestContext.responseHeaders) over the listener", () => {
  let ca: TestCa;
  let server: HttpServer;
  before(async () => {
    // Audit-ID from the filter, a flow-control-like header added below it, a Status from the error funnel for /fail.
    const handler = chain([auditIdFilter(), errorFunnel(() => {})], async (context) => {
      addResponseHeader(context, "X-Orch-PF-FlowSchema-UID", "schema-uid");
      if (context.request.path === "/fail") throw new ApiError(403, "Forbidden", "no");
      return { status: 200, headers: { "content-type": "application/json" }, body: "{}" };
    });
    ({ ca, server } = await startTlsListener({ handler }));
  });
  after(async () => {
    await server?.stop(0);
  });

  for (const protocol of ["h1", "h2"] as const) {
    it(`are written with the answer's own over ${protocol === "h1" ? "HTTP/1.1" : "HTTP/2"}, on a Status too`, async () => {
      for (const [path, status] of [
        ["/ok", 200],
        ["/fail", 403],
      ] as const) {
        const answer = await get(server.port, ca.certificate, path, protocol);
        assert.equal(answer.status, status);
        assert.match(answer.headers["audit-id"] ?? "", UUID);
        assert.equal(answer.headers["x-orch-pf-flowschema-uid"], "schema-uid");
        assert.equal(answer.headers["content-type"], "application/json");
      }
    });
  }
});
