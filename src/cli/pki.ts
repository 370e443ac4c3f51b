import { webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";

type WebCrypto = Parameters<typeof x509.cryptoProvider.set>[0];
type CryptoKeyPair = x509.X509CertificateCreateSelfSignedParams["keys"];
type CryptoKey = CryptoKeyPair["privateKey"];

x509.cryptoProvider.set(webcrypto as unknown as WebCrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

export interface PemPair {
  readonly certificate: string;
  readonly key: string;
}

/** The files a first start generates into the data dir, and later starts reuse. */
export interface Pki {
  readonly ca: PemPair;
  readonly serving: PemPair;
  readonly admin: PemPair;
  readonly caPath: string;
}

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
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
}

/** Escapes a value for an X.500 name string. */
function rdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

async function issue(ca: { certificate: x509.X509Certificate; key: CryptoKey }, options: { subject: string; server: boolean; dnsNames?: readonly string[]; ips?: readonly string[] }): Promise<PemPair> {
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

function readPair(dir: string, name: string): PemPair | undefined {
  const certificatePath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  if (!existsSync(certificatePath) || !existsSync(keyPath)) return undefined;
  return { certificate: readFileSync(certificatePath, "utf8"), key: readFileSync(keyPath, "utf8") };
}

function writePair(dir: string, name: string, pair: PemPair): void {
  writeFileSync(join(dir, `${name}.crt`), pair.certificate, { mode: 0o644 });
  writeFileSync(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
}

/**
 * Loads `<dir>/pki/{ca,serving,admin}.{crt,key}`, generating what is missing: a CA, a serving
 * certificate for localhost, 127.0.0.1, ::1 and the host name, and an admin client certificate
 * (CN `orch-admin`-style name given by the caller, O `system:masters`).
 */
export async function ensurePki(dataDir: string, options: { readonly adminUser: string; readonly extraNames?: readonly string[] }): Promise<Pki> {
  const dir = join(dataDir, "pki");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let caPair = readPair(dir, "ca");
  if (caPair === undefined) {
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
    caPair = { certificate: certificate.toString("pem"), key: await keyPem(keys) };
    writePair(dir, "ca", caPair);
  }
  const ca = { certificate: new x509.X509Certificate(caPair.certificate), key: await importKey(caPair.key) };
  let serving = readPair(dir, "serving");
  if (serving === undefined) {
    const host = hostname();
    const dnsNames = [...new Set(["localhost", host, ...(options.extraNames ?? []).filter((name) => !/^[\d.:]+$/.test(name))])];
    const ips = [...new Set(["127.0.0.1", "::1", ...(options.extraNames ?? []).filter((name) => /^[\d.:]+$/.test(name))])];
    serving = await issue(ca, { subject: `CN=${rdn("apiserver")}`, server: true, dnsNames, ips });
    writePair(dir, "serving", serving);
  }
  let admin = readPair(dir, "admin");
  if (admin === undefined) {
    admin = await issue(ca, { subject: `CN=${rdn(options.adminUser)}, O=system:masters`, server: false });
    writePair(dir, "admin", admin);
  }
  return { ca: caPair, serving, admin, caPath: join(dir, "ca.crt") };
}
