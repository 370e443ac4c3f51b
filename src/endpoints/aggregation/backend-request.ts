import type { IncomingMessage } from "node:http";
import https from "node:https";
import type { UserInfo } from "../../request/context.js";
import type { AggregatedVersion } from "./aggregated-apis.js";

/** The client identity the server presents to aggregated servers (`--proxy-client-cert-file`/`--proxy-client-key-file`). */
export interface ProxyClient {
  readonly cert: string;
  readonly key: string;
}

export interface BackendRequest {
  readonly method: string;
  /** Path with its query. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: Buffer;
  /** The user the backend serves, sent as kube's front-proxy headers. */
  readonly user: UserInfo;
  readonly signal?: AbortSignal;
  /** Give up waiting for the response head after this long (the body may stream for longer). */
  readonly timeoutMs?: number;
}

/** The request a proxy must not pass on as it came: hop-by-hop headers and the client's own credentials. */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "authorization",
  "content-length",
]);

function dropped(name: string): boolean {
  return DROPPED.has(name) || name.startsWith("impersonate-") || name.startsWith("x-remote-") || name.startsWith(":");
}

/** kube's front-proxy headers for a user: `X-Remote-User`, one `X-Remote-Group` per group, `X-Remote-Extra-<key>` (key escaped) per value. */
export function frontProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { "X-Remote-User": user.name };
  if (user.groups.length > 0) headers["X-Remote-Group"] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) headers[`X-Remote-Extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

/**
 * One request to an aggregated server, as kube's aggregator sends it: HTTPS to the resolved
 * address, the serving certificate verified against the APIService's caBundle for the name
 * `<service>.<namespace>.svc` (unless insecureSkipTLSVerify), the proxy client certificate
 * presented, the user in the front-proxy headers. Resolves with the response head; the body
 * streams from it. Rejects when the backend cannot be reached.
 */
export function backendRequest(target: AggregatedVersion, request: BackendRequest, client: ProxyClient | undefined): Promise<IncomingMessage> {
  const backend = target.view.backend;
  const address = target.address();
  if (backend === undefined || address.kind === "unresolved") return Promise.reject(new Error(address.kind === "unresolved" ? address.message : "local"));
  const headers: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!dropped(name.toLowerCase())) headers[name] = value;
  Object.assign(headers, frontProxyHeaders(request.user));
  if (request.body !== undefined && request.body.length > 0) headers["content-length"] = String(request.body.length);
  return new Promise((resolve, reject) => {
    const outgoing = https.request({
      host: address.host,
      port: address.port,
      method: request.method,
      path: request.path,
      headers: headers as Record<string, string | string[]>,
      agent: false,
      servername: `${backend.name}.${backend.namespace}.svc`,
      rejectUnauthorized: !backend.insecureSkipTlsVerify,
      ...(backend.caBundle === "" ? {} : { ca: backend.caBundle }),
      ...(client === undefined ? {} : { cert: client.cert, key: client.key }),
      signal: request.signal,
    });
    const timer =
      request.timeoutMs === undefined ? undefined : setTimeout(() => outgoing.destroy(new Error("timed out awaiting response headers")), request.timeoutMs);
    outgoing.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.on("response", (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    outgoing.end(request.body);
  });
}
