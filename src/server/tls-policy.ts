import { X509Certificate } from "node:crypto";
import type { SecureVersion } from "node:tls";

/**
 * The listener's TLS policy from `--tls-min-version` and `--tls-cipher-suites`: kube's (Go's)
 * names, mapped to OpenSSL's. TLS 1.3 suites are not configurable in Go, so, as in kube, the
 * list restricts TLS 1.2 and below and TLS 1.3 keeps its default suites.
 */
export interface TlsPolicy {
  readonly minVersion: SecureVersion;
  /** OpenSSL cipher list; undefined = Node's defaults. */
  readonly ciphers?: string;
}

export const DEFAULT_TLS_POLICY: TlsPolicy = { minVersion: "TLSv1.2" };

const VERSIONS: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
};

/** Go cipher suite names (crypto/tls) → OpenSSL names. TLS 1.3 names are accepted and left to the defaults. */
const CIPHER_SUITES: Readonly<Record<string, string | null>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_AES_128_GCM_SHA256: null,
  TLS_AES_256_GCM_SHA384: null,
  TLS_CHACHA20_POLY1305_SHA256: null,
};

/** Go's RC4 suites: kube lists them as insecure; OpenSSL 3 cannot offer them at all. */
const UNAVAILABLE = new Set(["TLS_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA"]);

/** `--tls-min-version`: VersionTLS10…VersionTLS13; throws a message naming the accepted values. */
export function parseTlsMinVersion(name: string): SecureVersion {
  const version = VERSIONS[name];
  if (version === undefined) throw new Error(`unknown tls version "${name}"; allowed values: ${Object.keys(VERSIONS).join(", ")}`);
  return version;
}

/** `--tls-cipher-suites`: Go names → an OpenSSL cipher list (undefined for an empty list = defaults). */
export function parseCipherSuites(names: readonly string[]): string | undefined {
  const openssl: string[] = [];
  for (const name of names) {
    if (UNAVAILABLE.has(name)) throw new Error(`cipher suite ${name} is not available (RC4 is not offered by this server's TLS library)`);
    const mapped = CIPHER_SUITES[name];
    if (mapped === undefined) throw new Error(`unknown cipher suite "${name}"; use Go's names, e.g. TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`);
    if (mapped !== null && !openssl.includes(mapped)) openssl.push(mapped);
  }
  if (names.length === 0) return undefined;
  // Only TLS 1.3 names given: TLS 1.2 would have no suite at all, which Go also refuses.
  if (openssl.length === 0) throw new Error("--tls-cipher-suites names only TLS 1.3 suites, which are not configurable; name at least one TLS 1.2 suite");
  return openssl.join(":");
}

/** The host names a certificate serves (SAN DNS names, else its CN), for SNI when `--tls-sni-cert-key` names none. */
export function certificateHostNames(pem: string): string[] {
  const certificate = new X509Certificate(pem);
  const dns = (certificate.subjectAltName ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith("DNS:"))
    .map((entry) => entry.slice(4).toLowerCase());
  if (dns.length > 0) return dns;
  const commonName = /(?:^|\n)CN=([^\n]+)/.exec(certificate.subject)?.[1];
  return commonName === undefined ? [] : [commonName.toLowerCase()];
}

/** Whether an SNI name matches a certificate name: exactly, or `*.example.com` for one label. */
export function hostNameMatches(pattern: string, serverName: string): boolean {
  const name = serverName.toLowerCase();
  if (pattern === name) return true;
  if (!pattern.startsWith("*.")) return false;
  const dot = name.indexOf(".");
  return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
}
