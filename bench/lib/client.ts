/**
 * Minimal HTTPS clients for the load generator: HTTP/1.1 over a keep-alive agent (one socket
 * per concurrent slot) and HTTP/2 over one multiplexed session (as client-go does).
 */
import { once } from "node:events";
import https from "node:https";
import http2 from "node:http2";

export interface Credentials {
  readonly ca: string;
  /** Client certificate and key; absent for bearer-token runs. */
  readonly cert?: string;
  readonly key?: string;
}

export interface Target {
  readonly host: string;
  readonly port: number;
  /** Client certificate and CA; without it the server certificate is not verified. */
  readonly credentials?: Credentials;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  readonly bearerToken?: string;
}

export type Protocol = "h1" | "h2";

export interface Reply {
  readonly status: number;
  readonly bytes: number;
  /** The body, when asked for with keepBody. */
  readonly body?: Buffer;
}

export interface Client {
  /** `contentType` of the body: application/json unless given (e.g. application/merge-patch+json). */
  request(method: string, path: string, body?: string, keepBody?: boolean, contentType?: string): Promise<Reply>;
  close(): void;
}

function tlsOptions(target: Target): { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean } {
  const credentials = target.credentials;
  if (credentials === undefined) return { rejectUnauthorized: false };
  return { ca: credentials.ca, cert: credentials.cert, key: credentials.key, rejectUnauthorized: true };
}

function requestHeaders(body: string | undefined, contentType = "application/json", bearerToken?: string): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "orch-bench/0.1" };
  if (bearerToken !== undefined) headers["authorization"] = `Bearer ${bearerToken}`;
  if (body !== undefined) {
    headers["content-type"] = contentType;
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  return headers;
}

/** HTTP/1.1 with a keep-alive agent, maxSockets = the concurrency it serves. */
export function h1Client(target: Target, maxSockets: number): Client {
  const agent = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" });
  const tls = tlsOptions(target);
  return {
    request(method, path, body, keepBody = false, contentType) {
      return new Promise<Reply>((resolve, reject) => {
        const request = https.request(
          { host: target.host, port: target.port, method, path, agent, headers: requestHeaders(body, contentType, target.bearerToken), ...tls },
          (response) => {
            const chunks: Buffer[] = [];
            let bytes = 0;
            response.on("data", (chunk: Buffer) => {
              bytes += chunk.length;
              if (keepBody) chunks.push(chunk);
            });
            response.once("end", () => {
              const reply: Reply = { status: response.statusCode ?? 0, bytes };
              resolve(keepBody ? { ...reply, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) } : reply);
            });
            response.once("error", reject);
          },
        );
        request.once("error", reject);
        request.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/** client-go's HTTP/2 flow-control windows: 4 MiB per stream, 1 GiB per connection. */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;

/** HTTP/2: one session, all concurrent requests multiplexed as streams on it. */
export async function h2Client(target: Target): Promise<Client> {
  const tls = tlsOptions(target);
  const session = http2.connect(`https://${target.host}:${target.port}`, {
    ...tls,
    settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
  });
  session.on("error", () => {});
  await once(session, "connect");
  session.setLocalWindowSize(CONNECTION_WINDOW);
  return {
    request(method, path, body, keepBody = false, contentType) {
      return new Promise<Reply>((resolve, reject) => {
        const headers: http2.OutgoingHttpHeaders = { ":method": method, ":path": path, ...requestHeaders(body, contentType, target.bearerToken) };
        delete headers["content-length"];
        const stream = session.request(headers, { endStream: body === undefined });
        let status = 0;
        const chunks: Buffer[] = [];
        let bytes = 0;
        stream.once("response", (responseHeaders) => {
          status = Number(responseHeaders[":status"] ?? 0);
        });
        stream.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (keepBody) chunks.push(chunk);
        });
        stream.once("end", () => {
          const reply: Reply = { status, bytes };
          resolve(keepBody ? { ...reply, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) } : reply);
        });
        stream.once("error", reject);
        if (body !== undefined) stream.end(body);
      });
    },
    close() {
      session.close();
    },
  };
}

export async function openClient(protocol: Protocol, target: Target, concurrency: number): Promise<Client> {
  return protocol === "h1" ? h1Client(target, concurrency) : h2Client(target);
}
