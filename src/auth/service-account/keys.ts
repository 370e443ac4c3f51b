import { createHash, createPrivateKey, createPublicKey, generateKeyPair, X509Certificate, type KeyObject } from "node:crypto";

/** JWS algorithms for the key types accepted: RSA (RS256, kube's default) and EC P-256/384/521. */
export type JwsAlgorithm = "RS256" | "ES256" | "ES384" | "ES512";

/** A public key tokens are verified with. `kid` is kube's: base64url SHA-256 of the SPKI DER. */
export interface VerificationKey {
  readonly kid: string;
  readonly algorithm: JwsAlgorithm;
  readonly key: KeyObject;
}

/** The private key tokens are signed with, and its public half's key id. */
export interface SigningKey {
  readonly kid: string;
  readonly algorithm: JwsAlgorithm;
  readonly key: KeyObject;
  readonly publicKey: KeyObject;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;
const PRIVATE_LABELS = new Set(["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]);
const PUBLIC_LABELS = new Set(["PUBLIC KEY", "RSA PUBLIC KEY"]);

export function algorithmOf(key: KeyObject): JwsAlgorithm {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    switch (key.asymmetricKeyDetails?.namedCurve) {
      case "prime256v1":
        return "ES256";
      case "secp384r1":
        return "ES384";
      case "secp521r1":
        return "ES512";
    }
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? "?"} ${key.asymmetricKeyDetails?.namedCurve ?? ""}`.trim());
}

/** kube's key id: the unpadded base64url SHA-256 of the public key's SPKI DER. */
export function keyId(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("base64url");
}

function verificationKey(publicKey: KeyObject): VerificationKey {
  return { kid: keyId(publicKey), algorithm: algorithmOf(publicKey), key: publicKey };
}

/**
 * Every public key in a PEM file, as `--service-account-key-file` takes it: public keys,
 * private keys (their public half) and certificates. Throws naming `what` when none is found.
 */
export function parseVerificationKeys(pem: string, what: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const match of pem.matchAll(PEM_BLOCK)) {
    const label = match[1] ?? "";
    const block = match[0];
    try {
      if (PUBLIC_LABELS.has(label) || PRIVATE_LABELS.has(label)) keys.push(verificationKey(createPublicKey(block)));
      else if (label === "CERTIFICATE") keys.push(verificationKey(new X509Certificate(block).publicKey));
    } catch (error) {
      throw new Error(`${what}: ${label} block is not usable: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  if (keys.length === 0) throw new Error(`${what}: no public key, private key or certificate found`);
  return keys;
}

/** The private key of `--service-account-signing-key-file` (the first private key block). */
export function parseSigningKey(pem: string, what: string): SigningKey {
  for (const match of pem.matchAll(PEM_BLOCK)) {
    if (!PRIVATE_LABELS.has(match[1] ?? "")) continue;
    const key = createPrivateKey(match[0]);
    const publicKey = createPublicKey(key);
    return { kid: keyId(publicKey), algorithm: algorithmOf(key), key, publicKey };
  }
  throw new Error(`${what}: no private key found`);
}

/** The key as a JWK for `/openid/v1/jwks`: public parameters plus `kid`, `use: sig` and `alg`. */
export function publicJwk(key: VerificationKey): Record<string, unknown> {
  return { use: "sig", ...key.key.export({ format: "jwk" }), kid: key.kid, alg: key.algorithm };
}

/** A new RSA 2048 key pair as PEM (PKCS#8 private, SPKI public), generated off the main thread. */
export function generateServiceAccountKeyPair(): Promise<{ readonly privateKey: string; readonly publicKey: string }> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      "rsa",
      { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } },
      (error, publicKey, privateKey) => {
        if (error !== null) reject(error);
        else resolve({ privateKey, publicKey });
      },
    );
  });
}
