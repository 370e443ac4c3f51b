// TLS flags on the real server: --tls-cert-file rotation without a restart (new connections get
// the new certificate, the old one is no longer served), --tls-sni-cert-key from files, and
// client certificates past their expiry refused with 401 (unless a valid bearer token comes with them).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect } from "node:tls";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestCa, issueCertificate, type TestCa } from "./helpers/certs.js";
import { request } from "./helpers/http.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

function servedFingerprint(port: number, ca: string, servername = "localhost"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername, ALPNProtocols: ["http/1.1"] }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? "");
      socket.end();
    });
    socket.on("error", reject);
  });
}

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;

describe("TLS flags on the server", { timeout: 60_000 }, () => {
  let ca: TestCa;
  let files: string;
  let server: TestServer;
  let servingA: { cert: string; key: string };
  let sni: { cert: string; key: string };
  let admin: { cert: string; key: string };

  before(async () => {
    ca = await createTestCa();
    files = makeTempDir("orch-tls-");
    servingA = await issueCertificate(ca, { subject: "CN=serving-a", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
    sni = await issueCertificate(ca, { subject: "CN=sni", server: true, dnsNames: ["api.example.test"] });
    admin = await issueCertificate(ca, { subject: "CN=root, O=system:masters", server: false });
    writeFileSync(join(files, "ca.pem"), ca.certificate);
    writeFileSync(join(files, "serving.pem"), servingA.cert);
    writeFileSync(join(files, "serving-key.pem"), servingA.key);
    writeFileSync(join(files, "sni.pem"), sni.cert);
    writeFileSync(join(files, "sni-key.pem"), sni.key);
    writeFileSync(join(files, "tokens.csv"), 'alice-token,alice,alice-uid,"team"\n');
    server = await startTestServer({
      tlsCertFile: join(files, "serving.pem"),
      tlsPrivateKeyFile: join(files, "serving-key.pem"),
      clientCaFile: join(files, "ca.pem"),
      tokenAuthFile: join(files, "tokens.csv"),
      tlsSniCertKeys: [{ certFile: join(files, "sni.pem"), keyFile: join(files, "sni-key.pem"), names: [] }],
      tlsMinVersion: "VersionTLS12",
      tlsCipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"],
    });
  });

  after(async () => {
    await server?.close();
    removeDir(files);
  });

  it("authenticates a valid client certificate and refuses an expired one with 401", async () => {
    const valid = await request({ url: server.server.url, ca: ca.certificate, ...admin }, "GET", "/api/v1/namespaces");
    assert.equal(valid.status, 200, valid.body);
    const expired = await issueCertificate(ca, {
      subject: "CN=root, O=system:masters",
      server: false,
      notBefore: new Date(Date.now() - 48 * 3600_000),
      notAfter: new Date(Date.now() - 24 * 3600_000),
    });
    const refused = await request({ url: server.server.url, ca: ca.certificate, ...expired }, "GET", "/api/v1/namespaces");
    assert.equal(refused.status, 401, refused.body);
    assert.equal((JSON.parse(refused.body) as { reason?: string }).reason, "Unauthorized");
    // As kube's union of authenticators: the certificate's failure does not stop a valid bearer
    // token sent with it (alice is authenticated, then not allowed); an invalid one is still 401.
    const withToken = await request({ url: server.server.url, ca: ca.certificate, ...expired, token: "alice-token" }, "GET", "/api/v1/namespaces");
    assert.equal(withToken.status, 403, withToken.body);
    assert.match(withToken.body, /User \\"alice\\" cannot list resource \\"namespaces\\"/);
    const badToken = await request({ url: server.server.url, ca: ca.certificate, ...expired, token: "wrong" }, "GET", "/api/v1/namespaces");
    assert.equal(badToken.status, 401, badToken.body);
  });

  it("serves the --tls-sni-cert-key certificate by SNI", async () => {
    assert.equal(await servedFingerprint(server.server.port, ca.certificate, "api.example.test"), fingerprint(sni.cert));
    assert.equal(await servedFingerprint(server.server.port, ca.certificate), fingerprint(servingA.cert));
  });

  it("rotates the serving certificate when its files change, without a restart", async () => {
    const servingB = await issueCertificate(ca, { subject: "CN=serving-b", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
    writeFileSync(join(files, "serving-key.pem"), servingB.key);
    writeFileSync(join(files, "serving.pem"), servingB.cert);
    await waitFor(async () => (await servedFingerprint(server.server.port, ca.certificate)) === fingerprint(servingB.cert), {
      what: "new connections to get the rotated certificate",
      timeoutMs: 15_000,
    });
    // The old certificate is gone: a client that pins it cannot connect any more.
    await assert.rejects(servedFingerprint(server.server.port, servingA.cert));
    const after = await request({ url: server.server.url, ca: ca.certificate, ...admin }, "GET", "/api/v1/namespaces");
    assert.equal(after.status, 200);
  });
});
