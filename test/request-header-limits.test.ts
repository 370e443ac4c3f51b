// Request header allowance through the real TLS listener: kube's server takes an HTTP/1.1 request
// line and headers up to 1 MiB (Go's MaxHeaderBytes); Node's default of 16 KiB refused long label
// selectors and large bearer tokens.
import assert from "node:assert/strict";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import { generateCa, issueServing } from "../src/cli/pki-generate.js";
import type { ApiResponse, Handler } from "../src/request/context.js";
import { MAX_HEADER_BYTES, startHttpServer, type HttpServer } from "../src/server/http-server.js";

interface Answer {
  readonly status: number;
  readonly body: string;
}

describe("request header allowance", () => {
  let server: HttpServer;
  let ca: string;
  const handler: Handler = async ({ request }): Promise<ApiResponse> => {
    const header = request.headers["x-big"];
    const seen = { path: request.path.length + (request.query.get("labelSelector")?.length ?? 0), header: typeof header === "string" ? header.length : 0 };
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(seen) };
  };

  before(async () => {
    const authority = await generateCa();
    ca = authority.certificate;
    const serving = await issueServing(authority, []);
    server = await startHttpServer({ tls: { certificate: serving.certificate, key: serving.key }, host: "127.0.0.1", port: 0, handler });
  });
  after(async () => {
    await server.stop(1000);
  });

  function http1(path: string, headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = https.request({ host: "127.0.0.1", port: server.port, path, ca, headers, maxHeaderSize: 1 << 24, agent: false }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
      request.end();
    });
  }

  it("takes a 100 KiB label selector and a 100 KiB header over HTTP/1.1 (Node's default refused past 16 KiB)", async () => {
    const selector = `app in (${Array.from({ length: 15_000 }, (_, index) => `v${index}`).join(",")})`;
    assert.ok(selector.length > 64 * 1024);
    const answer = await http1(`/api/v1/pods?labelSelector=${encodeURIComponent(selector)}`, { "x-big": "b".repeat(100 * 1024) });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { path: "/api/v1/pods".length + selector.length, header: 100 * 1024 });
  });

  it("takes headers totalling 900 KiB over HTTP/1.1 and answers 431 past kube's 1 MiB", async () => {
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`x-part-${index}`, "p".repeat(100 * 1024)]));
    assert.equal((await http1("/", nine)).status, 200);
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`x-part-${index}`, "p".repeat(100 * 1024)]));
    assert.ok(11 * 100 * 1024 > MAX_HEADER_BYTES + 4096);
    // Node answers 431 and closes; the client may still be writing its headers then, and a reset
    // can reach it before the answer does (as with Go's server), so either ends the request.
    const refused = await http1("/", eleven).then(
      (answer) => String(answer.status),
      (error: NodeJS.ErrnoException) => String(error.code),
    );
    assert.ok(["431", "ECONNRESET", "EPIPE"].includes(refused), refused);
  });
});
