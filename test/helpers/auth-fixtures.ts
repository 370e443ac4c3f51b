import { once } from "node:events";
import { writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { stringify } from "yaml";
import { generateCa, issueAdmin, issueServing } from "../../src/cli/pki-generate.js";
import type { PemPair } from "../../src/cli/pki.js";
import { json, request, type Credentials, type HttpResult } from "./http.js";

export { generateCa as newCa };

/** A client certificate from `ca`: CN `user`, O `system:masters` (what an attacker would claim). */
export function clientCertificate(ca: PemPair, user: string): Promise<PemPair> {
  return issueAdmin(ca, user);
}

export interface WhoAmI {
  readonly status: number;
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  readonly result: HttpResult;
}

/** Who the server takes the caller for: a SelfSubjectReview (`kubectl auth whoami`). */
export async function whoami(credentials: Credentials, headers: Readonly<Record<string, string>> = {}, group = "authentication.orch.io"): Promise<WhoAmI> {
  const result = await request(credentials, "POST", `/apis/${group}/v1/selfsubjectreviews`, {
    body: { apiVersion: `${group}/v1`, kind: "SelfSubjectReview" },
    headers,
  });
  if (result.status !== 201) return { status: result.status, result };
  const userInfo = ((json(result)["status"] as Record<string, unknown> | undefined)?.["userInfo"] ?? {}) as {
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  return { status: result.status, ...userInfo, result };
}

export interface TokenWebhook {
  readonly url: string;
  readonly ca: string;
  /** Bodies of the TokenReviews received. */
  readonly reviews: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A token-review webhook on 127.0.0.1 (TLS, its own CA): `answer` maps a token to the HTTP status
 * and body to reply with.
 */
export async function startTokenWebhook(answer: (token: string) => { readonly status: number; readonly body: unknown }): Promise<TokenWebhook> {
  const ca = await generateCa();
  const serving = await issueServing(ca, []);
  const reviews: Record<string, unknown>[] = [];
  const server = https.createServer({ cert: serving.certificate, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      reviews.push(review);
      const spec = (review["spec"] ?? {}) as { token?: string };
      const reply = answer(spec.token ?? "");
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/authenticate`,
    ca: ca.certificate,
    reviews,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a kubeconfig-format webhook configuration naming `url`, trusting `ca`. */
export function writeWebhookConfig(path: string, url: string, ca: string): void {
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "webhook", cluster: { server: url, "certificate-authority-data": Buffer.from(ca).toString("base64") } }],
      users: [{ name: "apiserver", user: {} }],
      contexts: [{ name: "webhook", context: { cluster: "webhook", user: "apiserver" } }],
      "current-context": "webhook",
    }),
  );
}

/** The Status body checks every 401/403 must pass. */
export function statusOf(result: HttpResult): { readonly kind: unknown; readonly code: unknown; readonly reason: unknown; readonly message: unknown } {
  const body = json(result);
  return { kind: body["kind"], code: body["code"], reason: body["reason"], message: body["message"] };
}
