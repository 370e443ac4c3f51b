import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

/** A PKCS#10 certificate request (CN=alice, O=dev), base64 of its PEM, as a CSR's `spec.request` carries it. For tests. */
export const TEST_CSR_REQUEST = Buffer.from(
  [
    "-----BEGIN CERTIFICATE REQUEST-----",
    "MIHaMIGAAgEAMB4xDjAMBgNVBAMMBWFsaWNlMQwwCgYDVQQKDANkZXYwWTATBgcq",
    "hkjOPQIBBggqhkjOPQMBBwNCAAQ+QOkJ4f3cAdZMqe/ey4wiEbXr9WYntra/mXEp",
    "l2af7N6ZkSA56TuTflg8xkI36EnNxheidwwm9ewTxV8S33knoAAwCgYIKoZIzj0E",
    "AwIDSQAwRgIhAOLRAJhNyA7SmoSr8AS0lGsnMWCRTQHsGd7gP+KHqM4LAiEAkUwe",
    "yMvhaihDN/p0AjWLjUDM46L+hE1xDKlH34jMFKo=",
    "-----END CERTIFICATE REQUEST-----",
    "",
  ].join("\n"),
).toString("base64");

/** What a generated test request asks for. */
export interface TestRequestOptions {
  /** X.500 name, e.g. `CN=system:node:n1, O=system:nodes`. */
  readonly subject: string;
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
  readonly emails?: readonly string[];
  readonly uris?: readonly string[];
}

/** For tests: a new P-256 key and a PEM certificate request for it (@peculiar/x509, no openssl). */
export async function generateTestRequest(options: TestRequestOptions): Promise<{ readonly request: string; readonly key: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as unknown as x509.Pkcs10CertificateRequestCreateParams["keys"];
  const names: x509.JsonGeneralName[] = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ips ?? []).map((value) => ({ type: "ip" as const, value })),
    ...(options.emails ?? []).map((value) => ({ type: "email" as const, value })),
    ...(options.uris ?? []).map((value) => ({ type: "url" as const, value })),
  ];
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: options.subject,
    keys,
    signingAlgorithm: algorithm,
    extensions: names.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(names, false)],
  });
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as unknown as webcrypto.CryptoKey);
  return { request: request.toString("pem"), key: x509.PemConverter.encode(der, "PRIVATE KEY") };
}
