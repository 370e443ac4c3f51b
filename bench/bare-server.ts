/**
 * The "bare" limit: a node:https (or node:http2 secure) server answering every request with a
 * fixed ~300-byte JSON body, with the same TLS certificate, key and client-certificate request
 * as orch-apiserver. Run as a child: `node bare-server.js https|h2 <cert> <key> <ca>`;
 * prints "listening <port>".
 */
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import https from "node:https";
import type { AddressInfo } from "node:net";

const [mode, certPath, keyPath, caPath] = process.argv.slice(2);
if ((mode !== "https" && mode !== "h2") || certPath === undefined || keyPath === undefined || caPath === undefined) {
  process.stderr.write("usage: bare-server.js https|h2 <cert> <key> <ca>\n");
  process.exit(2);
}

const BODY = Buffer.from(
  JSON.stringify({
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: {
      name: "bare",
      namespace: "default",
      uid: "00000000-0000-0000-0000-000000000000",
      resourceVersion: "1",
      creationTimestamp: "2025-01-01T00:00:00Z",
    },
    data: { mode: "benchmark", payload: "x".repeat(96) },
  }),
);
const HEADERS = { "content-type": "application/json", "content-length": String(BODY.length) };
const tls = {
  cert: readFileSync(certPath, "utf8"),
  key: readFileSync(keyPath, "utf8"),
  ca: readFileSync(caPath, "utf8"),
  requestCert: true,
  rejectUnauthorized: false,
  minVersion: "TLSv1.2" as const,
};

type Respond = { writeHead(status: number, headers: Record<string, string>): unknown; end(body: Buffer): unknown };
const handle = (request: { resume(): unknown }, response: Respond): void => {
  request.resume();
  response.writeHead(200, HEADERS);
  response.end(BODY);
};

const server = mode === "https" ? https.createServer(tls, handle) : http2.createSecureServer({ ...tls, allowHTTP1: true }, handle);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  process.exit(0);
});
