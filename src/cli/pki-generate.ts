/** Certificate generation, loaded only when a first start has certificates to make. */
import { webcrypto } from "node:crypto";
import { hostname } from "node:os";
import * as x509 from "@peculiar/x509";

type WebCrypto = Parameters<typeof x509.cryptoProvider.set>[0];
type CryptoKeyPair = x509.X509CertificateCreateSelfSignedParams["keys"];
type CryptoKey = CryptoKeyPair["privateKey"];

x509.cryptoProvider.set(webcrypto as unknown as WebCrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

import type { PemPair } from "./pki.js";

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as unknown as webcrypto.CryptoKey);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decode(pem)[0];
  if (der === undefined) throw new Error("CA key file holds no PEM block");
  return (await webcrypto.subtle.importKey("pkcs8", der, ALGORITHM, true, ["sign"])) as unknown as CryptoKey;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString("hex")
    .replace(/^[89a-f]/, "1");
}

/** Escapes a value for an X.500 name string. */
function rdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

async function issue(
  ca: { certificate: x509.X509Certificate; key: CryptoKey },
  options: { subject: string; server: boolean; dnsNames?: readonly string[]; ips?: readonly string[] },
): Promise<PemPair> {
  const keys = await newKeys();
  const names: x509.JsonGeneralName[] = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ips ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([options.server ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth], false),
    await x509.AuthorityKeyIdentifierExtension.create(ca.certificate, false),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names, false));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: options.subject,
    issuer: ca.certificate.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + YEAR_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    extensions,
  });
  return { certificate: certificate.toString("pem"), key: await keyPem(keys) };
}

/** A new self-signed CA valid for ten years. */
export async function generateCa(): Promise<PemPair> {
  const keys = await newKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${rdn("apiserver-ca")}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 10 * YEAR_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false),
    ],
  });
  return { certificate: certificate.toString("pem"), key: await keyPem(keys) };
}

async function loadCa(pair: PemPair): Promise<{ certificate: x509.X509Certificate; key: CryptoKey }> {
  return { certificate: new x509.X509Certificate(pair.certificate), key: await importKey(pair.key) };
}

/** A serving certificate for localhost, 127.0.0.1, ::1, the host name and any extra names. */
export async function issueServing(caPair: PemPair, extraNames: readonly string[]): Promise<PemPair> {
  const isIp = (name: string): boolean => /^[\d.:]+$/.test(name);
  const dnsNames = [...new Set(["localhost", hostname(), ...extraNames.filter((name) => !isIp(name))])];
  const ips = [...new Set(["127.0.0.1", "::1", ...extraNames.filter(isIp)])];
  return issue(await loadCa(caPair), { subject: `CN=${rdn("apiserver")}`, server: true, dnsNames, ips });
}

/** A client certificate for `user` in group system:masters. */
export async function issueAdmin(caPair: PemPair, user: string): Promise<PemPair> {
  return issue(await loadCa(caPair), { subject: `CN=${rdn(user)}, O=system:masters`, server: false });
}
