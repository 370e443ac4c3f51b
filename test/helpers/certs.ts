import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

type WebCrypto = Parameters<typeof x509.cryptoProvider.set>[0];
type CryptoKeyPair = x509.X509CertificateCreateSelfSignedParams["keys"];

x509.cryptoProvider.set(webcrypto as unknown as WebCrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/**
 * A self-signed client certificate (CN `user`, O `groups`) that no server CA signed: what an
 * attacker claiming `system:masters` would present.
 */
export async function selfSignedClientCertificate(user: string, groups: readonly string[]): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const subject = [`CN=${user}`, ...groups.map((group) => `O=${group}`)].join(", ");
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 24 * 3600 * 1000),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
    ],
  });
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as unknown as webcrypto.CryptoKey);
  return { cert: certificate.toString("pem"), key: x509.PemConverter.encode(der, "PRIVATE KEY") };
}

/** A test CA: its PEM certificate, and what `issueCertificate` signs with. */
export interface TestCa {
  readonly certificate: string;
  readonly sign: { readonly certificate: x509.X509Certificate; readonly key: CryptoKeyPair["privateKey"] };
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as unknown as webcrypto.CryptoKey);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

export async function createTestCa(name = "test-ca"): Promise<TestCa> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 24 * 3600_000),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { certificate: certificate.toString("pem"), sign: { certificate, key: keys.privateKey } };
}

/** A certificate signed by `ca`: a server one with DNS/IP names, or a client one (CN user, O groups); validity may be in the past. */
export async function issueCertificate(
  ca: TestCa,
  options: { subject: string; server: boolean; dnsNames?: readonly string[]; ips?: readonly string[]; notBefore?: Date; notAfter?: Date },
): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const names: x509.JsonGeneralName[] = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ips ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([options.server ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth], false),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names, false));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
      .toString("hex")
      .replace(/^[89a-f]/, "1"),
    subject: options.subject,
    issuer: ca.sign.certificate.subject,
    notBefore: options.notBefore ?? new Date(Date.now() - 60_000),
    notAfter: options.notAfter ?? new Date(Date.now() + 24 * 3600_000),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.sign.key,
    extensions,
  });
  return { cert: certificate.toString("pem"), key: await keyPem(keys) };
}
