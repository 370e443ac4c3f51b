/**
 * The fan-out limit: a bare node:http2 secure server (allowHTTP1, the same certificate, key and
 * client-certificate request as orch-apiserver) that speaks just enough of the API for the watch
 * benchmark: namespace and ConfigMap creates, merge-patches of a ConfigMap, a one-item list for a
 * resourceVersion, and watches. A write gets the next resourceVersion, is answered at once (no
 * storage), then its event line is written to every open watch in the same tick — no cache, no
 * filtering, no queues, no async iteration. `string` writes the line as a string to each watch
 * (what the server did before it coalesced fan-out); `buffer` encodes it once and writes the same
 * Buffer to each; `batch` collects the lines of one event-loop turn and writes them to each watch
 * as one shared Buffer (what the server does).
 * Run as a child: `node bare-watch-server.js <cert> <key> <ca> string|buffer|batch`; prints "listening <port>".
 */
import { readFileSync } from "node:fs";
import http2, { type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { AddressInfo } from "node:net";

const [certPath, keyPath, caPath, mode] = process.argv.slice(2);
if (certPath === undefined || keyPath === undefined || caPath === undefined || (mode !== "string" && mode !== "buffer" && mode !== "batch")) {
  process.stderr.write("usage: bare-watch-server.js <cert> <key> <ca> string|buffer|batch\n");
  process.exit(2);
}

type Json = Record<string, unknown>;

let revision = 1;
const objects = new Map<string, Json>();
const watches = new Set<Http2ServerResponse>();

function readBody(request: Http2ServerRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.once("error", reject);
  });
}

function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

let pending: string[] = [];

function flush(): void {
  const bytes = Buffer.from(pending.join(""));
  pending = [];
  for (const response of watches) response.write(bytes);
}

function fanOut(type: string, json: string): void {
  const line = `{"type":"${type}","object":${json}}\n`;
  if (mode === "batch") {
    if (pending.length === 0) setImmediate(flush);
    pending.push(line);
  } else if (mode === "buffer") {
    const bytes = Buffer.from(line);
    for (const response of watches) response.write(bytes);
  } else {
    for (const response of watches) response.write(line);
  }
}

async function handle(request: Http2ServerRequest, response: Http2ServerResponse): Promise<void> {
  const url = new URL(request.url, "https://localhost");
  const parts = url.pathname.split("/").filter((part) => part !== "");
  if (request.method === "GET" && url.searchParams.get("watch") === "1") {
    response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private" });
    const flushable = response as unknown as { flushHeaders?: () => void };
    flushable.flushHeaders?.();
    watches.add(response);
    response.once("close", () => watches.delete(response));
    return;
  }
  if (request.method === "GET") {
    const body = JSON.stringify({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: String(revision) }, items: [] });
    response.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
    response.end(body);
    return;
  }
  const text = await readBody(request);
  // /api/v1/namespaces[/<ns>/configmaps[/<name>]]
  const name = parts[5];
  let object: Json;
  let type = "ADDED";
  if (request.method === "PATCH" && name !== undefined) {
    const current = objects.get(name) ?? { apiVersion: "v1", kind: "ConfigMap", metadata: { name } };
    const patch = record(JSON.parse(text) as unknown);
    object = { ...current, data: { ...record(current["data"]), ...record(patch["data"]) } };
    type = "MODIFIED";
  } else {
    object = record(JSON.parse(text) as unknown);
  }
  revision++;
  object = { ...object, metadata: { ...record(object["metadata"]), resourceVersion: String(revision) } };
  const json = JSON.stringify(object);
  const objectName = record(object["metadata"])["name"];
  if (typeof objectName === "string" && parts[4] === "configmaps") objects.set(objectName, object);
  response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(json)) });
  response.end(json);
  if (parts[4] === "configmaps") fanOut(type, json);
}

const server = http2.createSecureServer({
  allowHTTP1: true,
  cert: readFileSync(certPath),
  key: readFileSync(keyPath),
  ca: readFileSync(caPath),
  requestCert: true,
  rejectUnauthorized: false,
  minVersion: "TLSv1.2",
  noDelay: true,
});
server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
  handle(request, response).catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500);
    response.end(String(error));
  });
});
server.on("sessionError", () => {});
server.on("tlsClientError", () => {});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
