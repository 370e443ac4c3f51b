/**
 * A loopback HTTPS admission webhook that allows every review at once, run as a child process by
 * the webhooks suite so its CPU is not counted as the server's. Reads the certificate and key
 * (PEM) from the environment, prints its port on stdout, serves until killed.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";

const server = https.createServer({ cert: process.env["WEBHOOK_CERT"], key: process.env["WEBHOOK_KEY"] }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { apiVersion: string; request: { uid: string } };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
