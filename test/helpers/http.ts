import http2 from "node:http2";
import https from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import { parse } from "yaml";

/** Where a server is and how to reach it: the CA to trust, and optionally a client identity. */
export interface Credentials {
  readonly url: string;
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
}

export interface HttpResult {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** "1.1" or "2.0". */
  readonly httpVersion: string;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === "string" ? body : JSON.stringify(body);
}

/** Parses a body as a JSON object, failing with (the start of) the raw text when it is not JSON. */
export function parseJson(text: string, status?: number): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`expected a JSON body${status === undefined ? "" : ` (status ${status})`}, got: ${text.slice(0, 500)}`);
  }
}

/** Parses a response body as JSON. */
export function json(result: HttpResult): Record<string, unknown> {
  return parseJson(result.body, result.status);
}

/** One HTTP/1.1 request on its own connection (no keep-alive, so nothing lingers after a test). */
export function request(credentials: Credentials, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
  const text = bodyText(options.body);
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (text !== undefined) headers["content-type"] ??= "application/json";
  if (credentials.token !== undefined) headers["authorization"] = `Bearer ${credentials.token}`;
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, credentials.url), {
      method,
      headers,
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
      agent: false,
      timeout: options.timeoutMs ?? 10_000,
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on("error", reject);
    req.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        if (!response.complete) reject(new Error(`${method} ${path}: response ended before it was complete`));
        else
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            httpVersion: response.httpVersion,
          });
      });
    });
    req.end(text);
  });
}

/** An HTTP/2 session for many concurrent requests (bulk creates). */
export interface Http2Client {
  readonly alpnProtocol: string | undefined;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  close(): Promise<void>;
}

export async function connectHttp2(credentials: Credentials): Promise<Http2Client> {
  const session = http2.connect(credentials.url, { ca: credentials.ca, cert: credentials.cert, key: credentials.key });
  // A session error (e.g. the server was killed) fails the pending streams; it must not crash the test process.
  session.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
  return {
    alpnProtocol: session.alpnProtocol,
    request(method, path, options = {}) {
      const text = bodyText(options.body);
      const headers: http2.OutgoingHttpHeaders = { ":method": method, ":path": path, accept: "application/json", ...options.headers };
      if (text !== undefined) headers["content-type"] ??= "application/json";
      if (credentials.token !== undefined) headers["authorization"] = `Bearer ${credentials.token}`;
      return new Promise((resolve, reject) => {
        let stream: http2.ClientHttp2Stream;
        try {
          stream = session.request(headers);
        } catch (error) {
          reject(error);
          return;
        }
        let status = 0;
        let responseHeaders: IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        stream.on("response", (received) => {
          status = Number(received[":status"]);
          responseHeaders = received as IncomingHttpHeaders;
        });
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("error", reject);
        stream.on("close", () => {
          if (status === 0 || stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR)
            reject(new Error(`${method} ${path}: stream closed (rst ${stream.rstCode}) without a complete response`));
          else resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString("utf8"), httpVersion: "2.0" });
        });
        stream.end(text);
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        if (session.closed || session.destroyed) resolve();
        else session.close(() => resolve());
      });
    },
  };
}

interface KubeconfigFile {
  clusters?: { cluster?: { server?: string; "certificate-authority-data"?: string } }[];
  users?: { user?: { "client-certificate-data"?: string; "client-key-data"?: string; token?: string } }[];
}

/** The server URL and (decoded) admin credentials of a kubeconfig with embedded data, as the server writes it. */
export function credentialsFromKubeconfig(text: string): Credentials {
  const config = parse(text) as KubeconfigFile;
  const cluster = config.clusters?.[0]?.cluster;
  const user = config.users?.[0]?.user;
  const decode = (value: string | undefined, what: string): string => {
    if (value === undefined) throw new Error(`kubeconfig has no ${what}`);
    return Buffer.from(value, "base64").toString("utf8");
  };
  if (cluster?.server === undefined) throw new Error("kubeconfig has no server");
  return {
    url: cluster.server,
    ca: decode(cluster["certificate-authority-data"], "certificate-authority-data"),
    cert: decode(user?.["client-certificate-data"], "client-certificate-data"),
    key: decode(user?.["client-key-data"], "client-key-data"),
  };
}

/** A ConfigMap manifest. */
export function configMap(name: string, data: Readonly<Record<string, string>> = {}, labels?: Readonly<Record<string, string>>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: labels === undefined ? { name } : { name, labels }, data };
}
