// Watches from the cache through the real TLS listener, over HTTP/1.1 (chunks framed onto the
// socket) and HTTP/2: an initial state larger than one chunk, live events from concurrent
// writes, and the end at timeoutSeconds with a final BOOKMARK, each line whole and in order.
import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import { before, describe, it } from "node:test";
import { configMap, connectHttp2, type Credentials, type Http2Client } from "./helpers/http.js";
import { useTestServer } from "./helpers/server.js";

const NAMESPACE = "streamed";
const INITIAL = 300;
const LIVE = 40;
/** ~2 KiB per object: the initial state (~600 KiB) is written in several chunks. */
const FILLER = "x".repeat(2048);
const WATCH = `/api/v1/namespaces/${NAMESPACE}/configmaps?watch=1&timeoutSeconds=2&allowWatchBookmarks=true`;

interface Line {
  readonly type: string;
  readonly object: { readonly metadata?: { readonly name?: string; readonly resourceVersion?: string } };
}

interface Streamed {
  readonly status: number;
  readonly lines: Line[];
  readonly complete: boolean;
}

function parseLines(text: string): Line[] {
  assert.ok(text.endsWith("\n"), "the stream ends with a whole line");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Line);
}

/** Opens the watch over HTTP/1.1; `onHeaders` runs once the server has registered it. */
function watchHttp1(credentials: Credentials, onHeaders: () => void): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const request = https.request(new URL(WATCH, credentials.url), {
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
      agent: false,
      headers: { accept: "application/json" },
    });
    request.on("error", reject);
    request.on("response", (response) => {
      assert.equal(response.httpVersion, "1.1");
      assert.equal(response.headers["transfer-encoding"], "chunked");
      onHeaders();
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, lines: parseLines(Buffer.concat(chunks).toString("utf8")), complete: response.complete }),
      );
    });
    request.end();
  });
}

function watchHttp2(credentials: Credentials, onHeaders: () => void): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(credentials.url, { ca: credentials.ca, cert: credentials.cert, key: credentials.key });
    session.on("error", reject);
    const stream = session.request({ ":method": "GET", ":path": WATCH, accept: "application/json" });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
      onHeaders();
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("end", () => {
      session.close();
      resolve({
        status,
        lines: parseLines(Buffer.concat(chunks).toString("utf8")),
        complete: stream.rstCode === undefined || stream.rstCode === http2.constants.NGHTTP2_NO_ERROR,
      });
    });
    stream.end();
  });
}

describe("cached watch streams through the listener", () => {
  const server = useTestServer();
  let writer: Http2Client;

  before(async () => {
    writer = await connectHttp2(server().admin);
    assert.equal(
      (await writer.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } } })).status,
      201,
    );
    const created = await Promise.all(
      Array.from({ length: INITIAL }, (_, index) =>
        writer.request("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: configMap(`initial-${index}`, { filler: FILLER }) }),
      ),
    );
    assert.ok(created.every((response) => response.status === 201));
  });

  for (const [protocol, open] of [
    ["HTTP/1.1", watchHttp1],
    ["HTTP/2", watchHttp2],
  ] as const) {
    it(`${protocol}: the state, then live events, then a final BOOKMARK, every line whole`, async () => {
      const tag = protocol === "HTTP/2" ? "h2" : "h1";
      let writes: Promise<unknown> = Promise.resolve();
      const streamed = await open(server().admin, () => {
        // The watch is registered before its headers go out: these are live events.
        writes = Promise.all(
          Array.from({ length: LIVE }, (_, index) =>
            writer.request("POST", `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: configMap(`live-${tag}-${index}`, { filler: FILLER }) }),
          ),
        );
      });
      await writes;
      assert.equal(streamed.status, 200);
      assert.ok(streamed.complete, "the response ended cleanly");
      const events = streamed.lines.filter((line) => line.type !== "BOOKMARK");
      assert.equal(streamed.lines.at(-1)?.type, "BOOKMARK");
      const names = events.map((line) => line.object.metadata?.name ?? "");
      const initial = names.filter((name) => name.startsWith("initial-"));
      const live = names.filter((name) => name.startsWith(`live-${tag}-`));
      assert.equal(initial.length, INITIAL);
      assert.equal(live.length, LIVE);
      assert.ok(events.every((line) => line.type === "ADDED"));
      const liveVersions = events
        .filter((line) => line.object.metadata?.name?.startsWith(`live-${tag}-`) === true)
        .map((line) => Number(line.object.metadata?.resourceVersion));
      assert.deepEqual(
        liveVersions,
        [...liveVersions].sort((a, b) => a - b),
        "live events in version order",
      );
    });
  }
});
