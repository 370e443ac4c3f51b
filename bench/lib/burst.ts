/**
 * The lean client of paired runs (`paired.ts`): one HTTP/2 session per server (as client-go), or
 * HTTP/1.1 keep-alive with one socket per request in flight; requests with prepared headers and bodies, replies drained without being kept or parsed (the
 * body is kept only to explain an unexpected status). Every variant of a run gets the same client.
 */
import { once } from "node:events";
import http2 from "node:http2";
import https from "node:https";
import type { Protocol, Target } from "./client.js";

/** client-go's HTTP/2 flow-control windows: 4 MiB per stream, 1 GiB per connection. */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;

export interface BurstRequest {
  readonly method: string;
  readonly path: string;
  /** The body of the i-th request of the session (a create needs a fresh name each time). */
  readonly body?: (index: number) => Buffer;
  readonly expectStatus: number;
}

export interface BurstClient {
  /** `ops` requests with `concurrency` in flight; rejects on the first unexpected status. */
  burst(ops: number): Promise<void>;
  close(): void;
}

/** Runs `one` `ops` times with `concurrency` in flight. */
async function closedLoop(one: () => Promise<void>, ops: number, concurrency: number): Promise<void> {
  let issued = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, ops) }, async () => {
      while (issued < ops) {
        issued++;
        await one();
      }
    }),
  );
}

export async function burstClient(target: Target, request: BurstRequest, concurrency: number, protocol: Protocol = "h2"): Promise<BurstClient> {
  return protocol === "h1" ? h1BurstClient(target, request, concurrency) : h2BurstClient(target, request, concurrency);
}

function h1BurstClient(target: Target, request: BurstRequest, concurrency: number): BurstClient {
  const credentials = target.credentials;
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency, scheduling: "lifo" });
  const options: https.RequestOptions = {
    host: target.host,
    port: target.port,
    method: request.method,
    path: request.path,
    agent,
    ...(credentials === undefined ? { rejectUnauthorized: false } : { ca: credentials.ca, cert: credentials.cert, key: credentials.key }),
  };
  const baseHeaders: Record<string, string> = {
    accept: "application/json",
    "user-agent": "orch-bench/0.1",
    ...(target.bearerToken === undefined ? {} : { authorization: `Bearer ${target.bearerToken}` }),
  };
  const getHeaders = { ...options, headers: baseHeaders };
  let sent = 0;
  const one = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const body = request.body?.(sent++);
      const sending =
        body === undefined
          ? getHeaders
          : { ...options, headers: { ...baseHeaders, "content-type": "application/json", "content-length": String(body.length) } };
      const outgoing = https.request(sending, (reply) => {
        const status = reply.statusCode ?? 0;
        let text = "";
        reply.on("data", (chunk: Buffer) => {
          if (status !== request.expectStatus && text.length < 500) text += chunk.toString("utf8");
        });
        reply.once("end", () => {
          if (status === request.expectStatus) resolve();
          else reject(new Error(`${request.method} ${request.path}: HTTP ${status} ${text.slice(0, 300)}`));
        });
        reply.once("error", reject);
      });
      outgoing.once("error", reject);
      outgoing.end(body);
    });
  return {
    burst: (ops) => closedLoop(one, ops, concurrency),
    close() {
      agent.destroy();
    },
  };
}

async function h2BurstClient(target: Target, request: BurstRequest, concurrency: number): Promise<BurstClient> {
  const credentials = target.credentials;
  const session = http2.connect(`https://${target.host}:${target.port}`, {
    ...(credentials === undefined ? { rejectUnauthorized: false } : { ca: credentials.ca, cert: credentials.cert, key: credentials.key }),
    settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
  });
  session.on("error", () => {});
  await once(session, "connect");
  session.setLocalWindowSize(CONNECTION_WINDOW);
  const headers: http2.OutgoingHttpHeaders = {
    ":method": request.method,
    ":path": request.path,
    accept: "application/json",
    "user-agent": "orch-bench/0.1",
    ...(request.body === undefined ? {} : { "content-type": "application/json" }),
    ...(target.bearerToken === undefined ? {} : { authorization: `Bearer ${target.bearerToken}` }),
  };
  let sent = 0;
  const one = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const body = request.body?.(sent++);
      const stream = session.request(headers, { endStream: body === undefined });
      let status = 0;
      let text = "";
      stream.once("response", (reply) => {
        status = Number(reply[":status"] ?? 0);
      });
      stream.on("data", (chunk: Buffer) => {
        if (status !== request.expectStatus && text.length < 500) text += chunk.toString("utf8");
      });
      stream.once("end", () => {
        if (status === request.expectStatus) resolve();
        else reject(new Error(`${request.method} ${request.path}: HTTP ${status} ${text.slice(0, 300)}`));
      });
      stream.once("error", reject);
      if (body !== undefined) stream.end(body);
    });
  return {
    burst: (ops) => closedLoop(one, ops, concurrency),
    close() {
      session.close();
    },
  };
}

/** A JSON body template with `$NAME` replaced by a fresh name per request: prepared once, two copies per request. */
export function namedBodies(template: Record<string, unknown>, prefix: string): (index: number) => Buffer {
  const [head = "", tail = ""] = JSON.stringify(template).split("$NAME");
  return (index) => Buffer.from(`${head}${prefix}-${index}${tail}`);
}
