import { context, propagation } from "@opentelemetry/api";
import type { Agent, Dispatcher } from "undici";
import type { Hook } from "./hook.js";

/** How a hook is called: what the client pool needs of a Hook (conversion webhooks build just this). */
export type HookCall = Pick<Hook, "id" | "target" | "caBundle" | "clientKey" | "timeoutSeconds">;

/** A failure to get a usable answer from a hook (kube's ErrCallingWebhook): subject to failurePolicy. */
export class WebhookCallError extends Error {
  /** The HTTP status the hook answered with, when it answered with one other than 200. */
  readonly status: number;
  /**
   * The HTTP client's own error, without admission's `failed to call webhook: ` (kube's conversion
   * webhook reports it bare): `Post "<url>": <cause>`, or client-go's words for an answer it refused.
   */
  readonly clientError: string;

  constructor(message: string, status = 0, clientError = message) {
    super(message);
    this.name = "WebhookCallError";
    this.status = status;
    this.clientError = clientError;
  }
}

/** Where a Service-addressed hook is reached now: one ready endpoint address and port. */
export type ServiceResolver = (namespace: string, name: string, port: number) => { readonly host: string; readonly port: number } | string;

type Undici = typeof import("undici");

let undici: Promise<Undici> | undefined;
/** The module once loaded: later calls use it without an await. */
let loadedUndici: Undici | undefined;

/** undici (~0.8 MB of code) is loaded at the first hook call, not at start-up (issue #21). */
function loadUndici(): Promise<Undici> {
  undici ??= import("undici").then((module) => {
    loadedUndici = module;
    return module;
  });
  return undici;
}

interface PooledAgent {
  readonly clientKey: string;
  /** The connect timeout the agent was made with (the hook's timeoutSeconds). */
  readonly timeoutSeconds: number;
  readonly agent: Agent;
}

/** Where one call goes: the origin to connect to, the request path, and the text errors name. */
interface Destination {
  readonly origin: string;
  readonly path: string;
  readonly where: string;
}

/**
 * HTTPS clients for hooks: one keep-alive connection pool per hook (undici's Agent: the
 * maintained Node HTTP/1.1 client, several times cheaper per call than `https.request`),
 * trusting its `caBundle` (or the system roots without one), with the TLS server name of a
 * Service-addressed hook; replaced when the hook's target or caBundle changes and dropped when
 * the hook goes away (`retain`). A url hook's destination is parsed once per client.
 */
export class HookClients {
  private readonly agents = new Map<string, PooledAgent>();
  private readonly destinations = new Map<string, Destination>();

  constructor(private readonly resolveService: ServiceResolver) {}

  /**
   * POSTs `body` as JSON; resolves the parsed JSON reply of a 200, else rejects with a
   * WebhookCallError. `timeoutSeconds` bounds the whole call (connect, TLS, request, answer).
   * Uses undici's dispatch with a handler that collects the body: no response stream, no
   * AbortSignal per call (a timeout aborts through the dispatch controller).
   */
  post(hook: HookCall, body: unknown, options: PostOptions = {}): Promise<unknown> {
    const module = loadedUndici;
    if (module === undefined) return loadUndici().then(() => this.post(hook, body, options));
    // kube's admission client sends the hook's timeout as `?timeout=<n>s` (client-go's request timeout), and its errors name that URL.
    const query = options.timeoutParameter === true ? `?timeout=${hook.timeoutSeconds}s` : "";
    let destination: Destination;
    let agent: Agent;
    try {
      destination = this.destinationOf(hook, query);
      agent = this.agentFor(hook, module.Agent);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<unknown>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let status = 0;
      let contentType: string | undefined;
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      const finish = (error: WebhookCallError | undefined, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error === undefined) resolve(value);
        else reject(error);
      };
      const fail = (message: string): WebhookCallError => {
        const clientError = `Post "${destination.where}${query}": ${message}`;
        return new WebhookCallError(`failed to call webhook: ${clientError}`, 0, clientError);
      };
      const timedOut = "context deadline exceeded";
      const timer = setTimeout(() => {
        // Before the request reached a socket there is no controller yet: it aborts on arrival.
        controller?.abort(new Error(timedOut));
        finish(fail(timedOut));
      }, hook.timeoutSeconds * 1000);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
          if (settled) started.abort(new Error(timedOut));
        },
        onResponseStart(_controller, statusCode, headers) {
          status = statusCode;
          const type = headers["content-type"];
          contentType = Array.isArray(type) ? type[0] : type;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          const raw = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8");
          if (status !== 200) {
            const clientError = unexpectedStatus(status, raw, contentType);
            finish(new WebhookCallError(`failed to call webhook: ${clientError}`, status, clientError));
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw);
          } catch {
            finish(new WebhookCallError(`received invalid webhook response: the body is not JSON: ${raw.slice(0, 200)}`));
            return;
          }
          finish(undefined, parsed);
        },
        onResponseError(_controller, error) {
          finish(fail(describe(error)));
        },
      };
      agent.dispatch(
        {
          origin: destination.origin,
          path: `${destination.path}${query}`,
          method: "POST",
          headers: tracedHeaders({ "content-type": "application/json", accept: "application/json" }),
          body: JSON.stringify(body),
        },
        handler,
      );
    });
  }

  /** Drops the agents of hooks no longer configured (`live` = the ids of every current hook). */
  retain(live: ReadonlySet<string>): void {
    for (const [id, pooled] of this.agents) {
      if (!live.has(id)) {
        void pooled.agent.destroy().catch(() => undefined);
        this.agents.delete(id);
        this.destinations.delete(id);
      }
    }
  }

  close(): void {
    for (const pooled of this.agents.values()) void pooled.agent.destroy().catch(() => undefined);
    this.agents.clear();
    this.destinations.clear();
  }

  /** A url hook's destination (cached per client key); a Service hook's, resolved per call. */
  /** Where a hook is reached; a Service that does not resolve fails as kube's dial does, naming the URL (`query` is the call's). */
  private destinationOf(hook: HookCall, query: string): Destination {
    const target = hook.target;
    switch (target.kind) {
      case "invalid":
        throw new WebhookCallError(target.reason);
      case "url": {
        const cached = this.destinations.get(hook.id);
        if (cached !== undefined && this.agents.get(hook.id)?.clientKey === hook.clientKey) return cached;
        const url = target.url;
        const destination = { origin: url.origin, path: `${url.pathname}${url.search}`, where: url.href };
        this.destinations.set(hook.id, destination);
        return destination;
      }
      case "service": {
        const where = `https://${target.name}.${target.namespace}.svc:${target.port}${target.path}`;
        const resolved = this.resolveService(target.namespace, target.name, target.port);
        if (typeof resolved === "string") {
          const clientError = `Post "${where}${query}": ${resolved}`;
          throw new WebhookCallError(`failed to call webhook: ${clientError}`, 0, clientError);
        }
        const host = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
        const path = target.path.startsWith("/") ? target.path : `/${target.path}`;
        return { origin: `https://${host}:${resolved.port}`, path, where };
      }
    }
  }

  private agentFor(hook: HookCall, AgentClass: Undici["Agent"]): Agent {
    const pooled = this.agents.get(hook.id);
    if (pooled !== undefined && pooled.clientKey === hook.clientKey && pooled.timeoutSeconds === hook.timeoutSeconds) return pooled.agent;
    if (pooled !== undefined) void pooled.agent.destroy().catch(() => undefined);
    const target = hook.target;
    const servername = target.kind === "service" ? `${target.name}.${target.namespace}.svc` : undefined;
    const agent = new AgentClass({
      connections: 64,
      // A connection that does not come up within the hook's timeout is given up (the call has failed by then).
      connect: {
        timeout: hook.timeoutSeconds * 1000,
        ...(hook.caBundle === undefined ? {} : { ca: hook.caBundle }),
        ...(servername === undefined ? {} : { servername }),
      },
    });
    this.agents.set(hook.id, { clientKey: hook.clientKey, timeoutSeconds: hook.timeoutSeconds, agent });
    return agent;
  }
}

/** What a call may ask of the client besides the hook. */
export interface PostOptions {
  /** Send the hook's timeout as `?timeout=<n>s`, as kube's admission webhook client does (default: no). */
  readonly timeoutParameter?: boolean;
}

/** Fields of Node's connection and TLS errors that Go's words need. */
interface NodeNetError extends Error {
  readonly code?: string;
  readonly address?: string;
  readonly port?: number;
  readonly host?: string;
  readonly cert?: { readonly subjectaltname?: string; readonly valid_to?: string };
}

/** Node's codes for a chain that does not reach a trusted root: Go's "unknown authority". */
const UNKNOWN_AUTHORITY = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
]);

const IP_ADDRESS = /^[0-9.]+$|:/;

/** Go's x509.HostnameError: the names the certificate is valid for, of the kind (IP or DNS) of the host asked for. */
function hostnameMismatch(error: NodeNetError): string {
  const host = error.host ?? "";
  const byIp = IP_ADDRESS.test(host);
  const names = (error.cert?.subjectaltname ?? "")
    .split(", ")
    .filter((entry) => entry.startsWith(byIp ? "IP Address:" : "DNS:"))
    .map((entry) => entry.slice(entry.indexOf(":") + 1));
  return names.length === 0
    ? `x509: certificate is not valid for any names, but wanted to match ${host}`
    : `x509: certificate is valid for ${names.join(", ")}, not ${host}`;
}

/** Go's RFC 3339 rendering of a time (UTC, whole seconds). */
function goTime(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * An error's message the way Go's HTTP client words the common ones (kube's messages quote
 * them: `dial tcp …: connect: connection refused`, `tls: failed to verify certificate: x509: …`);
 * others keep Node's message.
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const failure = (cause instanceof Error && error.message === "fetch failed" ? cause : error) as NodeNetError;
  const code = failure.code ?? "";
  if (code === "ECONNREFUSED" && failure.address !== undefined && failure.port !== undefined) {
    const address = failure.address.includes(":") ? `[${failure.address}]` : failure.address;
    return `dial tcp ${address}:${failure.port}: connect: connection refused`;
  }
  if (UNKNOWN_AUTHORITY.has(code)) return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return `tls: failed to verify certificate: ${hostnameMismatch(failure)}`;
  if (code === "CERT_HAS_EXPIRED" && failure.cert?.valid_to !== undefined) {
    const expired = new Date(failure.cert.valid_to);
    if (!Number.isNaN(expired.getTime()))
      return `tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time ${goTime(new Date())} is after ${goTime(expired)}`;
  }
  return failure.message;
}

/** client-go's words for an answer other than 200 whose body is not a Status (its NewGenericServerResponse). */
const STATUS_MESSAGES: Readonly<Record<number, string>> = {
  400: "the server rejected our request for an unknown reason",
  401: "the server has asked for the client to provide credentials",
  404: "the server could not find the requested resource",
  405: "the server does not allow this method on the requested resource",
  406: "the server was unable to respond with a content type that the client supports",
  409: "the server reported a conflict",
  415: "the server was unable to respond with a content type that the client supports",
  422: "the server rejected our request due to an error in our request",
  429: "the server has received too many requests and has asked us to try again later",
  503: "the server is currently unable to handle the request",
  504: "the server was unable to return a response in the time allotted, but may still be processing the request",
};

/**
 * What kube's webhook client reports for an answer with a status other than 200: a Status body
 * (status Failure) speaks for itself; otherwise client-go's message for the code, quoting a text
 * body (no content type, or `text/*`; first 1 KiB, trimmed) where it does — 403 and 5xx.
 */
function unexpectedStatus(status: number, raw: string, contentType: string | undefined): string {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === "object" && parsed !== null && (parsed as Record<string, unknown>)["status"] === "Failure") {
      const message = (parsed as Record<string, unknown>)["message"];
      if (typeof message === "string") return message;
    }
  } catch {
    // Not JSON: a text or other body.
  }
  const media = contentType?.split(";")[0]?.trim().toLowerCase();
  const text = media === undefined || media === "" || media.startsWith("text/") ? raw.slice(0, 1024).trim() : "unknown";
  if (status === 403) return text;
  if (status >= 500 && STATUS_MESSAGES[status] === undefined)
    return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  return STATUS_MESSAGES[status] ?? `the server responded with the status code ${status} but did not return more information`;
}

/**
 * The headers with the active trace's W3C `traceparent` (and `tracestate`) added when tracing is
 * on, so the hook's spans join the request's trace; without tracing nothing is added.
 */
function tracedHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}
