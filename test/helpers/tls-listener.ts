import { type HttpServer, type HttpServerOptions, startHttpServer } from "../../src/server/http-server.js";
import { createTestCa, issueCertificate, type TestCa } from "./certs.js";

/**
 * The listener alone on a loopback port, serving with a certificate for localhost/127.0.0.1 from a
 * throw-away CA (connect with `ca: ca.certificate, servername: "localhost"`).
 */
export async function startTlsListener(options: Omit<HttpServerOptions, "tls" | "host" | "port">): Promise<{ ca: TestCa; server: HttpServer }> {
  const ca = await createTestCa();
  const serving = await issueCertificate(ca, { subject: "CN=serving", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
  const server = await startHttpServer({ ...options, tls: { certificate: serving.cert, key: serving.key }, host: "127.0.0.1", port: 0 });
  return { ca, server };
}
