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
