import { atomic, bytes, enumOf, int32, listMap, mapOf, obj, ref, req, str, strings, time, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** certificates.<apiDomain>/v1 CertificateSigningRequest. */

/** The key usages a request may ask for (kube's KeyUsage values). */
export const KEY_USAGES: readonly string[] = [
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
];

export const CERTIFICATES_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "certificates.v1.CertificateSigningRequest": resource("CertificateSigningRequest asks a signer for an X.509 certificate.", {
    spec: req(
      obj({
        expirationSeconds: int32("Requested duration of validity; at least 600."),
        extra: mapOf(strings()),
        groups: strings(),
        request: req({ ...bytes("A PEM-encoded PKCS#10 certificate request."), listType: "atomic" }),
        signerName: req(str("The signer asked to sign: a qualified name such as example.com/signer.")),
        uid: str(),
        usages: req(atomic(enumOf(KEY_USAGES), "Key usages requested; no duplicates.")),
        username: str(),
      }),
    ),
    status: obj({
      certificate: { ...bytes("The issued certificate chain, PEM-encoded."), listType: "atomic" },
      conditions: listMap(ref("certificates.v1.CertificateSigningRequestCondition"), ["type"], {
        description: "Approved, Denied or Failed; at most one of each.",
      }),
    }),
  }),
  "certificates.v1.CertificateSigningRequestCondition": obj({
    lastTransitionTime: time(),
    lastUpdateTime: time(),
    message: str(),
    reason: str(),
    status: req(enumOf(["True", "False", "Unknown"])),
    type: req(str("Approved, Denied or Failed.")),
  }),
};

export const CERTIFICATES_KINDS: readonly KindDeclaration[] = kindsOf("certificates", { domain: true }, { v1: ["CertificateSigningRequest"] });
