import { createPrivateKey, randomBytes, webcrypto } from "node:crypto";
import type * as x509 from "@peculiar/x509";
import { SUBJECT_ALT_NAME } from "../csr.js";
import { loadX509, type X509Library } from "../x509-library.js";

type CryptoKey = x509.X509CertificateCreateWithKeyParams["signingKey"];
type SignAlgorithm = NonNullable<x509.X509CertificateCreateWithKeyParams["signingAlgorithm"]>;
type ImportAlgorithm = webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams | webcrypto.Algorithm;

/** A CA certificate and private key, PEM. */
export interface SigningPair {
  readonly certificate: string;
  readonly key: string;
}

/** A loaded signing CA: issues certificates for requests. */
export interface CertificateAuthority {
  readonly certificate: x509.X509Certificate;
  /**
   * Issues a certificate for `request` with `usages` (the CSR's spelling), valid `ttlMs` from
   * `nowMs` (backdated 5 minutes when the lifetime is 8 hours or more, as kube's signer) and
   * never past the CA's own expiry. Subject and alternative names come from the request; the CA
   * flag is never set. Returns the PEM certificate.
   */
  issue(request: x509.Pkcs10CertificateRequest, usages: readonly string[], options: { readonly ttlMs: number; readonly nowMs: number }): Promise<string>;
}

/** Key usages by the CSR's spelling (the library is loaded lazily, so its enums are read here). */
function keyUsages(x509: X509Library): Readonly<Record<string, number>> {
  return {
    signing: x509.KeyUsageFlags.digitalSignature,
    "digital signature": x509.KeyUsageFlags.digitalSignature,
    "content commitment": x509.KeyUsageFlags.nonRepudiation,
    "key encipherment": x509.KeyUsageFlags.keyEncipherment,
    "key agreement": x509.KeyUsageFlags.keyAgreement,
    "data encipherment": x509.KeyUsageFlags.dataEncipherment,
    "cert sign": x509.KeyUsageFlags.keyCertSign,
    "crl sign": x509.KeyUsageFlags.cRLSign,
    "encipher only": x509.KeyUsageFlags.encipherOnly,
    "decipher only": x509.KeyUsageFlags.decipherOnly,
  };
}

/** Extended key usages (OIDs) by the CSR's spelling. */
function extendedKeyUsages(x509: X509Library): Readonly<Record<string, string>> {
  return {
    any: "2.5.29.37.0",
    "server auth": x509.ExtendedKeyUsage.serverAuth,
    "client auth": x509.ExtendedKeyUsage.clientAuth,
    "code signing": x509.ExtendedKeyUsage.codeSigning,
    "email protection": x509.ExtendedKeyUsage.emailProtection,
    "s/mime": x509.ExtendedKeyUsage.emailProtection,
    "ipsec end system": "1.3.6.1.5.5.7.3.5",
    "ipsec tunnel": "1.3.6.1.5.5.7.3.6",
    "ipsec user": "1.3.6.1.5.5.7.3.7",
    timestamping: x509.ExtendedKeyUsage.timeStamping,
    "ocsp signing": x509.ExtendedKeyUsage.ocspSigning,
    "microsoft sgc": "1.3.6.1.4.1.311.10.3.3",
    "netscape sgc": "2.16.840.1.113730.4.1",
  };
}

const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3600_000;
const CURVES: Readonly<Record<string, { readonly curve: string; readonly hash: string }>> = {
  prime256v1: { curve: "P-256", hash: "SHA-256" },
  secp384r1: { curve: "P-384", hash: "SHA-384" },
  secp521r1: { curve: "P-521", hash: "SHA-512" },
};

/** The WebCrypto algorithm of a PEM private key in any of PKCS#8, PKCS#1 or SEC1 form, and its PKCS#8 DER. */
function signingAlgorithm(pem: string): { readonly der: Buffer; readonly algorithm: ImportAlgorithm; readonly sign: SignAlgorithm } {
  const key = createPrivateKey(pem);
  const der = key.export({ format: "der", type: "pkcs8" });
  switch (key.asymmetricKeyType) {
    case "rsa":
      return { der, algorithm: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } };
    case "ec": {
      const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""];
      if (curve === undefined) throw new Error(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve ?? "?"}`);
      return { der, algorithm: { name: "ECDSA", namedCurve: curve.curve }, sign: { name: "ECDSA", hash: curve.hash } };
    }
    case "ed25519":
      return { der, algorithm: { name: "Ed25519" }, sign: { name: "Ed25519" } };
    default:
      throw new Error(`unsupported signing key type ${key.asymmetricKeyType ?? "?"}`);
  }
}

/** Loads a CA from PEM; throws when the key is not usable for signing or does not match. */
export async function loadAuthority(pair: SigningPair): Promise<CertificateAuthority> {
  const x509 = await loadX509();
  const KEY_USAGES = keyUsages(x509);
  const EXTENDED_KEY_USAGES = extendedKeyUsages(x509);
  const certificate = new x509.X509Certificate(pair.certificate);
  const { der, algorithm, sign } = signingAlgorithm(pair.key);
  const key = (await webcrypto.subtle.importKey("pkcs8", der, algorithm, false, ["sign"])) as unknown as CryptoKey;
  const authorityKeyId = await x509.AuthorityKeyIdentifierExtension.create(certificate, false);
  return {
    certificate,
    async issue(request, usages, options) {
      const bits = usages.reduce((flags, usage) => flags | (KEY_USAGES[usage] ?? 0), 0);
      const extended = [...new Set(usages.flatMap((usage) => EXTENDED_KEY_USAGES[usage] ?? []))];
      const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true), authorityKeyId];
      if (bits !== 0) extensions.push(new x509.KeyUsagesExtension(bits, true));
      if (extended.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extended, false));
      const names = request.getExtension(SUBJECT_ALT_NAME);
      if (names !== null) extensions.push(new x509.Extension(SUBJECT_ALT_NAME, false, names.value));
      const short = options.ttlMs < SHORT_MS;
      const notBefore = options.nowMs - BACKDATE_MS;
      const notAfter = Math.min(short ? options.nowMs + options.ttlMs : notBefore + options.ttlMs, certificate.notAfter.getTime());
      const issued = await x509.X509CertificateGenerator.create({
        serialNumber: randomBytes(16)
          .toString("hex")
          .replace(/^[89a-f]/, "1"),
        subject: request.subjectName,
        issuer: certificate.subjectName,
        notBefore: new Date(Math.max(notBefore, certificate.notBefore.getTime())),
        notAfter: new Date(notAfter),
        publicKey: request.publicKey,
        signingKey: key,
        signingAlgorithm: sign,
        extensions,
      });
      return issued.toString("pem");
    },
  };
}
