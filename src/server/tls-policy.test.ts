import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { connect, type ConnectionOptions } from "node:tls";
import { after, before, describe, test } from "node:test";
import { createTestCa, issueCertificate, type TestCa } from "../../test/helpers/certs.js";
import { startHttpServer, type HttpServer } from "./http-server.js";
import { certificateHostNames, hostNameMatches, parseCipherSuites, parseTlsMinVersion } from "./tls-policy.js";

interface Handshake {
  readonly ok: boolean;
  readonly protocol?: string;
  readonly cipher?: string;
  readonly fingerprint?: string;
  readonly error?: string;
}

function handshake(port: number, ca: string, options: ConnectionOptions = {}): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername: "localhost", ALPNProtocols: ["http/1.1"], ...options }, () => {
      const certificate = socket.getPeerX509Certificate();
      resolve({ ok: true, protocol: socket.getProtocol() ?? "", cipher: socket.getCipher().name, fingerprint: certificate?.fingerprint256 });
      socket.end();
    });
    socket.on("error", (error) => resolve({ ok: false, error: error.message }));
  });
}

describe("parseTlsMinVersion() and parseCipherSuites()", () => {
  test("map Go's names to OpenSSL's and refuse unknown ones", () => {
    assert.equal(parseTlsMinVersion("VersionTLS12"), "TLSv1.2");
    assert.equal(parseTlsMinVersion("VersionTLS13"), "TLSv1.3");
    assert.throws(() => parseTlsMinVersion("TLS1.2"), /allowed values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/);
    assert.equal(
      parseCipherSuites(["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256"]),
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305",
    );
    assert.equal(parseCipherSuites([]), undefined);
    assert.throws(() => parseCipherSuites(["ECDHE-ECDSA-AES128-GCM-SHA256"]), /unknown cipher suite/);
    assert.throws(() => parseCipherSuites(["TLS_RSA_WITH_RC4_128_SHA"]), /not available/);
    assert.throws(() => parseCipherSuites(["TLS_AES_128_GCM_SHA256"]), /only TLS 1.3 suites/);
  });

  test("hostNameMatches() takes exact names and one-label wildcards", () => {
    assert.ok(hostNameMatches("api.example.test", "API.example.test"));
    assert.ok(hostNameMatches("*.example.test", "api.example.test"));
    assert.ok(!hostNameMatches("*.example.test", "a.b.example.test"));
    assert.ok(!hostNameMatches("*.example.test", "example.test"));
  });
});

describe("the listener's TLS policy, SNI and certificate rotation", () => {
  let ca: TestCa;
  let servingA: { cert: string; key: string };
  let servingB: { cert: string; key: string };
  let sniCert: { cert: string; key: string };
  let strict: HttpServer;
  let modern: HttpServer;
  const handler = async () => ({ status: 200, headers: { "content-type": "text/plain" }, body: "ok" });

  before(async () => {
    ca = await createTestCa();
    servingA = await issueCertificate(ca, { subject: "CN=serving-a", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
    servingB = await issueCertificate(ca, { subject: "CN=serving-b", server: true, dnsNames: ["localhost"], ips: ["127.0.0.1"] });
    sniCert = await issueCertificate(ca, { subject: "CN=sni", server: true, dnsNames: ["api.example.test", "*.apps.example.test"] });
    strict = await startHttpServer({
      tls: { certificate: servingA.cert, key: servingA.key, sni: [{ names: certificateHostNames(sniCert.cert), certificate: sniCert.cert, key: sniCert.key }] },
      host: "127.0.0.1",
      port: 0,
      handler,
      policy: { minVersion: "TLSv1.2", ciphers: parseCipherSuites(["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"]) },
    });
    modern = await startHttpServer({
      tls: { certificate: servingA.cert, key: servingA.key },
      host: "127.0.0.1",
      port: 0,
      handler,
      policy: { minVersion: parseTlsMinVersion("VersionTLS13") },
    });
  });

  after(async () => {
    await strict?.stop(0);
    await modern?.stop(0);
  });

  test("the default floor is TLS 1.2; --tls-min-version VersionTLS13 refuses TLS 1.2", async () => {
    assert.equal((await handshake(strict.port, ca.certificate, { maxVersion: "TLSv1.1", minVersion: "TLSv1.1", ciphers: "DEFAULT@SECLEVEL=0" })).ok, false);
    assert.equal((await handshake(modern.port, ca.certificate, { maxVersion: "TLSv1.2" })).ok, false);
    const tls13 = await handshake(modern.port, ca.certificate);
    assert.equal(tls13.protocol, "TLSv1.3");
  });

  test("--tls-cipher-suites limits TLS 1.2 to the named suites", async () => {
    const chosen = await handshake(strict.port, ca.certificate, { maxVersion: "TLSv1.2" });
    assert.equal(chosen.cipher, "ECDHE-ECDSA-AES256-GCM-SHA384");
    const other = await handshake(strict.port, ca.certificate, { maxVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" });
    assert.equal(other.ok, false);
  });

  test("--tls-sni-cert-key serves its certificate to clients asking for its names, the default one otherwise", async () => {
    const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
    assert.equal((await handshake(strict.port, ca.certificate, { servername: "api.example.test" })).fingerprint, fingerprint(sniCert.cert));
    assert.equal((await handshake(strict.port, ca.certificate, { servername: "web.apps.example.test" })).fingerprint, fingerprint(sniCert.cert));
    assert.equal((await handshake(strict.port, ca.certificate, { servername: "localhost" })).fingerprint, fingerprint(servingA.cert));
  });

  test("setTls rotates the serving certificate for new connections; the old one is no longer served", async () => {
    const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
    assert.equal((await handshake(modern.port, ca.certificate)).fingerprint, fingerprint(servingA.cert));
    modern.setTls({ certificate: servingB.cert, key: servingB.key });
    assert.equal((await handshake(modern.port, ca.certificate)).fingerprint, fingerprint(servingB.cert));
    // A client pinning the old certificate (its only trust anchor) can no longer connect.
    const pinned = await handshake(modern.port, servingA.cert);
    assert.equal(pinned.ok, false);
  });
});
