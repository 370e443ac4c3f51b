import https from "node:https";

/** A client identity for calls to aggregated servers (`--proxy-client-cert-file`, `--proxy-client-key-file`). */
export interface ProxyClientCertificate {
  readonly cert: string;
  readonly key: string;
}

/** Asks a backend's discovery URL; resolves undefined when it answers 2xx, else the failure as kube's Go client words it. */
export type DiscoveryProbe = (url: string) => Promise<string | undefined>;

export interface DiscoveryProbeOptions {
  /** Presented to the backend when given. */
  readonly client?: ProxyClientCertificate;
  /** The front-proxy user the check calls as (the profile's `aggregatorUser`), in group `system:masters`. */
  readonly user: string;
  /** Default 5 s, kube's. */
  readonly timeoutMs?: number;
}

/** A Go net/http error text for a failed GET (`Get "<url>": dial tcp <host>: connect: connection refused`). */
function goError(url: URL, error: NodeJS.ErrnoException): string {
  const target = `${url.hostname.includes(":") ? `[${url.hostname}]` : url.hostname}:${url.port || "443"}`;
  const detail =
    error.code === "ECONNREFUSED"
      ? `dial tcp ${target}: connect: connection refused`
      : error.code === "ENOTFOUND"
        ? `dial tcp: lookup ${url.hostname}: no such host`
        : error.message;
  return `Get "${url.href}": ${detail}`;
}

/**
 * kube's availability check of an aggregated server: a GET of its discovery path that must answer
 * 2xx within the timeout. As kube's, it does not verify the serving certificate (the caBundle
 * guards proxied requests, not this check) and calls as the aggregator in `system:masters`
 * through the front-proxy headers.
 */
export function discoveryProbe(options: DiscoveryProbeOptions): DiscoveryProbe {
  const timeoutMs = options.timeoutMs ?? 5000;
  return (url) =>
    new Promise((resolve) => {
      const target = new URL(url);
      const request = https.request(target, {
        method: "GET",
        rejectUnauthorized: false,
        agent: false,
        cert: options.client?.cert,
        key: options.client?.key,
        headers: { accept: "application/json", "x-remote-user": options.user, "x-remote-group": "system:masters" },
      });
      const timer = setTimeout(() => {
        request.destroy();
        resolve(`Get "${target.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
      }, timeoutMs);
      request.on("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve(goError(target, error));
      });
      request.on("response", (response) => {
        clearTimeout(timer);
        response.resume();
        const status = response.statusCode ?? 0;
        resolve(status >= 200 && status < 300 ? undefined : `bad status from ${target.href}: ${status}`);
      });
      request.end();
    });
}
