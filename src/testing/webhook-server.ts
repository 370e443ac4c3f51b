import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throw-away CA and one serving certificate it signed (PEM), for loopback HTTPS test servers. */
export interface TestPki {
  readonly caCert: string;
  readonly caBundle: string;
  readonly cert: string;
  readonly key: string;
}

/** For tests: a new CA and a serving certificate for 127.0.0.1 and the given DNS names (openssl). */
export function generateTestPki(dnsNames: readonly string[] = []): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "test-pki-"));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync("openssl", args, { stdio: "ignore" });
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl("req", "-x509", ...ec, "-days", "1", "-keyout", file("ca.key"), "-out", file("ca.pem"), "-subj", "/CN=test-webhook-ca");
    openssl("req", "-new", ...ec, "-keyout", file("leaf.key"), "-out", file("leaf.csr"), "-subj", "/CN=webhook");
    const names = ["IP:127.0.0.1", ...dnsNames.map((name) => `DNS:${name}`)].join(",");
    writeFileSync(file("ext.cnf"), `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`);
    openssl(
      "x509",
      "-req",
      "-in",
      file("leaf.csr"),
      "-CA",
      file("ca.pem"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-days",
      "1",
      "-extfile",
      file("ext.cnf"),
      "-out",
      file("leaf.pem"),
    );
    const caCert = readFileSync(file("ca.pem"), "utf8");
    return {
      caCert,
      caBundle: Buffer.from(caCert).toString("base64"),
      cert: readFileSync(file("leaf.pem"), "utf8"),
      key: readFileSync(file("leaf.key"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a test webhook answers one review with: a `response` (uid filled in unless given), or a raw reply. */
export type WebhookAnswer =
  | { readonly response: Record<string, unknown>; readonly apiVersion?: string }
  | { readonly raw: string; readonly status?: number /** default `application/json` */; readonly contentType?: string }
  | { readonly hang: true };

/** A loopback HTTPS webhook server for tests; `reviews` holds every AdmissionReview received, per path. */
export interface TestWebhookServer {
  readonly url: string;
  readonly port: number;
  readonly reviews: Record<string, unknown>[];
  /** The W3C `traceparent` header of each review received, in order ("" when absent). */
  readonly traceparents: string[];
  /** The request target of each review received, query included (`/deny?timeout=10s`), in order. */
  readonly targets: string[];
  /** Calls per path (`/deny`, …; the query is not part of the path). */
  count(path: string): number;
  /** Forgets the reviews and counts so far. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts an HTTPS server on 127.0.0.1 answering AdmissionReviews with `answer(review, path)`.
 * A `hang` answer never replies (for timeouts); it is released when the server closes.
 */
export async function startWebhookServer(
  pki: Pick<TestPki, "cert" | "key">,
  answer: (review: Record<string, unknown>, path: string) => WebhookAnswer,
): Promise<TestWebhookServer> {
  const reviews: Record<string, unknown>[] = [];
  const traceparents: string[] = [];
  const paths: string[] = [];
  const targets: string[] = [];
  const server = https.createServer({ cert: pki.cert, key: pki.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      const target = request.url ?? "/";
      const path = target.split("?")[0] ?? "/";
      reviews.push(review);
      targets.push(target);
      traceparents.push(String(request.headers["traceparent"] ?? ""));
      paths.push(path);
      const reply = answer(review, path);
      if ("hang" in reply) return;
      if ("raw" in reply) {
        response.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
        response.end(reply.raw);
        return;
      }
      const request_ = review["request"] as Record<string, unknown>;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          apiVersion: reply.apiVersion ?? review["apiVersion"],
          kind: "AdmissionReview",
          response: { uid: request_["uid"], ...reply.response },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    reviews,
    traceparents,
    targets,
    count: (path) => paths.filter((seen) => seen === path).length,
    reset() {
      reviews.length = 0;
      traceparents.length = 0;
      paths.length = 0;
      targets.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON patch as a webhook sends it (base64). */
export function encodePatch(operations: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(operations)).toString("base64");
}
