import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
 * (CN the given user, O `system:masters`). The generator (and its X.509 library) is only loaded
 * when something is missing, which keeps warm starts fast.
 */
export async function ensurePki(dataDir: string, options: { readonly adminUser: string; readonly extraNames?: readonly string[] }): Promise<Pki> {
  const dir = join(dataDir, "pki");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ca = readPair(dir, "ca");
  let serving = readPair(dir, "serving");
  let admin = readPair(dir, "admin");
  if (ca === undefined || serving === undefined || admin === undefined) {
    const generator = await import("./pki-generate.js");
    if (ca === undefined) {
      ca = await generator.generateCa();
      writePair(dir, "ca", ca);
    }
    if (serving === undefined) {
      serving = await generator.issueServing(ca, options.extraNames ?? []);
      writePair(dir, "serving", serving);
    }
    if (admin === undefined) {
      admin = await generator.issueAdmin(ca, options.adminUser);
      writePair(dir, "admin", admin);
    }
  }
  return { ca, serving, admin, caPath: join(dir, "ca.crt") };
}

/** The generated service-account key pair: `<dataDir>/pki/sa.key` (PKCS#8) and `sa.pub` (SPKI). */
export interface ServiceAccountKeyFiles {
  readonly keyPath: string;
  readonly publicKeyPath: string;
}

/**
 * Generates the service-account key pair (RSA 2048, for RS256 as clients expect) on first start
 * and reuses it later, as `ensurePki` does for certificates. Generation runs off the main thread.
 */
export async function ensureServiceAccountKeys(dataDir: string): Promise<ServiceAccountKeyFiles> {
  const dir = join(dataDir, "pki");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyPath = join(dir, "sa.key");
  const publicKeyPath = join(dir, "sa.pub");
  if (!existsSync(keyPath) || !existsSync(publicKeyPath)) {
    const { generateServiceAccountKeyPair } = await import("../auth/service-account/keys.js");
    const pair = await generateServiceAccountKeyPair();
    writeFileSync(keyPath, pair.privateKey, { mode: 0o600 });
    writeFileSync(publicKeyPath, pair.publicKey, { mode: 0o644 });
  }
  return { keyPath, publicKeyPath };
}
