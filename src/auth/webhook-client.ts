import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { dirname, resolve } from "node:path";
import { parseFirstDocument } from "../util/yaml.js";
import { isPlainObject } from "../api/object.js";

/** Where and how to call a webhook, read from a kubeconfig-format file (cluster = the remote service, user = our credentials). */
export interface WebhookClientConfig {
  readonly url: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTlsVerify: boolean;
}

function entry(list: unknown, name: string | undefined, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const chosen = name === undefined ? list[0] : list.find((item) => isPlainObject(item) && item["name"] === name);
  return isPlainObject(chosen) && isPlainObject(chosen[field]) ? chosen[field] : undefined;
}

function text(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A webhook kubeconfig that cannot be used: the message names the file. */
export class WebhookConfigError extends Error {
  override readonly name = "WebhookConfigError";
}

/** Go's text for a failed open, as kube's kubeconfig validation quotes it. */
function openFailure(file: string, error: unknown): string {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  const reason =
    code === "ENOENT" ? "no such file or directory" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "is a directory" : String(error);
  return `open ${file}: ${reason}`;
}

/**
 * Reads the webhook kubeconfig: the current context's cluster and user (the first of each when
 * there is no current context). File paths resolve against the file's directory; `*-data`
 * fields are base64. Throws naming the file on anything unusable.
 */
export function loadWebhookConfig(path: string): WebhookClientConfig {
  const fail = (message: string): never => {
    throw new WebhookConfigError(`webhook config ${path}: ${message}`);
  };
  let document: unknown;
  try {
    document = parseFirstDocument(readFileSync(path, "utf8"));
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if (!isPlainObject(document)) return fail("not a kubeconfig");
  const contextName = text(document, "current-context");
  const context = contextName === undefined ? undefined : entry(document["contexts"], contextName, "context");
  if (contextName !== undefined && context === undefined) fail(`current-context "${contextName}" not found`);
  const cluster = entry(document["clusters"], text(context, "cluster"), "cluster");
  const user = entry(document["users"], text(context, "user"), "user");
  const server = text(cluster, "server") ?? fail("the cluster has no server");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return fail(`server "${server}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(`server "${server}" must be http or https`);
  const base = dirname(resolve(path));
  // kube's kubeconfig validation: every unreadable file is reported, the user's before the cluster's.
  const unreadable: string[] = [];
  const readOrNote = (file: string, what: string, owner: string): string | undefined => {
    const full = resolve(base, file);
    try {
      return readFileSync(full, "utf8");
    } catch (error) {
      unreadable.push(`unable to read ${what} ${full} for ${owner} due to ${openFailure(full, error)}`);
      return undefined;
    }
  };
  const userName = text(context, "user") ?? "";
  const clusterName = text(context, "cluster") ?? "";
  const material = (record: Record<string, unknown> | undefined, key: string, what: string, owner: string): string | undefined => {
    const data = text(record, `${key}-data`);
    if (data !== undefined) return Buffer.from(data, "base64").toString("utf8");
    const file = text(record, key);
    return file === undefined ? undefined : readOrNote(file, what, owner);
  };
  const cert = material(user, "client-certificate", "client-cert", userName);
  const key = material(user, "client-key", "client-key", userName);
  const tokenFile = text(user, "tokenFile");
  const token = text(user, "token") ?? (tokenFile === undefined ? undefined : readOrNote(tokenFile, "tokenFile", userName)?.trim());
  const ca = material(cluster, "certificate-authority", "certificate-authority", clusterName);
  if (unreadable.length > 0) fail(`invalid configuration: [${unreadable.join(", ")}]`);
  return {
    url,
    insecureSkipTlsVerify: cluster?.["insecure-skip-tls-verify"] === true,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(token === undefined ? {} : { token }),
  };
}

export interface WebhookResponse {
  readonly status: number;
  readonly body: unknown;
}

/** A JSON POST client for one webhook, reusing connections. */
export interface WebhookClient {
  post(body: unknown, timeoutMs: number): Promise<WebhookResponse>;
  close(): void;
}

export function webhookClient(config: WebhookClientConfig): WebhookClient {
  const secure = config.url.protocol === "https:";
  const agent = secure
    ? new https.Agent({ keepAlive: true, ca: config.ca, cert: config.cert, key: config.key, rejectUnauthorized: !config.insecureSkipTlsVerify })
    : new http.Agent({ keepAlive: true });
  return {
    post(body, timeoutMs) {
      const payload = JSON.stringify(body);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json",
        "content-length": String(Buffer.byteLength(payload)),
      };
      if (config.token !== undefined) headers["authorization"] = `Bearer ${config.token}`;
      return new Promise((resolveResponse, reject) => {
        const request = (secure ? https : http).request(config.url, { method: "POST", headers, agent, timeout: timeoutMs });
        request.on("timeout", () => request.destroy(new Error(`webhook ${config.url.origin} timed out after ${timeoutMs} ms`)));
        request.on("error", reject);
        request.on("response", (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            const raw = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown;
            try {
              parsed = raw === "" ? undefined : JSON.parse(raw);
            } catch {
              parsed = undefined;
            }
            resolveResponse({ status: response.statusCode ?? 0, body: parsed });
          });
        });
        request.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
