import { context, propagation } from "@opentelemetry/api";
import https from "node:https";
import type { Hook } from "./hook.js";

/** How a hook is called: what the client pool needs of a Hook (conversion webhooks build just this). */
export type HookCall = Pick<Hook, "id" | "target" | "caBundle" | "clientKey" | "timeoutSeconds">;

/** A failure to get a usable answer from a hook (kube's ErrCallingWebhook): subject to failurePolicy. */
export class WebhookCallError extends Error {
  /** The HTTP status the hook answered with, when it answered with one other than 200. */
  readonly status: number;

  constructor(message: string, status = 0) {
    super(message);
    this.name = "WebhookCallError";
    this.status = status;
  }
}

/** Where a Service-addressed hook is reached now: one ready endpoint address and port. */
export type ServiceResolver = (namespace: string, name: string, port: number) => { readonly host: string; readonly port: number } | string;

interface PooledAgent {
  readonly clientKey: string;
  readonly agent: https.Agent;
}

/**
 * HTTPS clients for hooks: one keep-alive agent per hook, trusting its `caBundle` (or the
 * system roots without one), replaced when the hook's target or caBundle changes and dropped
 * when the hook goes away (`retain`).
 */
export class HookClients {
  private readonly agents = new Map<string, PooledAgent>();

  constructor(private readonly resolveService: ServiceResolver) {}

  /** POSTs `body` as JSON; resolves the parsed JSON reply of a 200, else throws WebhookCallError. */
  async post(hook: HookCall, body: unknown): Promise<unknown> {
    const target = hook.target;
    let url: URL;
    let servername: string | undefined;
    switch (target.kind) {
      case "invalid":
        throw new WebhookCallError(target.reason);
      case "url":
        url = target.url;
        break;
      case "service": {
        const resolved = this.resolveService(target.namespace, target.name, target.port);
        if (typeof resolved === "string") throw new WebhookCallError(resolved);
        servername = `${target.name}.${target.namespace}.svc`;
        const host = resolved.host.includes(":") ? `[${resolved.host}]` : resolved.host;
        url = new URL(`https://${host}:${resolved.port}${target.path.startsWith("/") ? target.path : `/${target.path}`}`);
        break;
      }
    }
    const agent = this.agentFor(hook);
    const payload = JSON.stringify(body);
    const timeoutMs = hook.timeoutSeconds * 1000;
    const where = target.kind === "service" ? `https://${servername}:${target.port}${target.path}` : url.href;
    return new Promise((resolve, reject) => {
      const fail = (message: string, status = 0) => reject(new WebhookCallError(`failed to call webhook: Post "${where}": ${message}`, status));
      const request = https.request(url, {
        method: "POST",
        agent,
        ...(servername === undefined ? {} : { servername }),
        headers: tracedHeaders({ "content-type": "application/json", accept: "application/json", "content-length": String(Buffer.byteLength(payload)) }),
      });
      const timer = setTimeout(() => {
        request.destroy(new Error(`context deadline exceeded (timeout ${hook.timeoutSeconds}s)`));
      }, timeoutMs);
      request.on("error", (error) => {
        clearTimeout(timer);
        fail(error.message);
      });
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", (error) => {
          clearTimeout(timer);
          fail(error.message);
        });
        response.on("end", () => {
          clearTimeout(timer);
          const raw = Buffer.concat(chunks).toString("utf8");
          const status = response.statusCode ?? 0;
          if (status !== 200) {
            reject(new WebhookCallError(`failed to call webhook: the server responded with status ${status}: ${raw.slice(0, 200)}`, status));
            return;
          }
          try {
            resolve(JSON.parse(raw));
          } catch {
            reject(new WebhookCallError(`received invalid webhook response: the body is not JSON: ${raw.slice(0, 200)}`));
          }
        });
      });
      request.end(payload);
    });
  }

  /** Drops the agents of hooks no longer configured (`live` = the ids of every current hook). */
  retain(live: ReadonlySet<string>): void {
    for (const [id, pooled] of this.agents) {
      if (!live.has(id)) {
        pooled.agent.destroy();
        this.agents.delete(id);
      }
    }
  }

  close(): void {
    for (const pooled of this.agents.values()) pooled.agent.destroy();
    this.agents.clear();
  }

  private agentFor(hook: HookCall): https.Agent {
    const pooled = this.agents.get(hook.id);
    if (pooled !== undefined && pooled.clientKey === hook.clientKey) return pooled.agent;
    pooled?.agent.destroy();
    const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ...(hook.caBundle === undefined ? {} : { ca: hook.caBundle }) });
    this.agents.set(hook.id, { clientKey: hook.clientKey, agent });
    return agent;
  }
}

/**
 * The headers with the active trace's W3C `traceparent` (and `tracestate`) added when tracing is
 * on, so the hook's spans join the request's trace; without tracing nothing is added.
 */
function tracedHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}
