import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM, type DecipherGCM } from "node:crypto";
import type Nacl from "tweetnacl";
import { lazyRequire } from "../../util/lazy-require.js";
import type { DecryptResult, ValueTransformer } from "./transformer.js";

/** tweetnacl (secretbox) is loaded when a secretbox key is first configured, not at start-up. */
const naclLibrary = lazyRequire<typeof Nacl>("tweetnacl");

/** The provider that stores plain text. */
export const IDENTITY: ValueTransformer = {
  prefix: "",
  encrypt: async (plaintext) => plaintext,
  decrypt: async (ciphertext) => ({ plaintext: ciphertext, stale: false }),
};

function aesAlgorithm(mode: "cbc" | "gcm", key: Buffer): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new Error(`an AES key must be 16, 24 or 32 bytes, not ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

/** aescbc: AES-CBC with PKCS#7 padding; the stored bytes are a random 16-byte IV then the ciphertext. */
export function aesCbcTransformer(prefix: string, key: Buffer): ValueTransformer {
  const algorithm = aesAlgorithm("cbc", key);
  return {
    prefix,
    async encrypt(plaintext) {
      const iv = randomBytes(16);
      const cipher = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]);
    },
    async decrypt(ciphertext): Promise<DecryptResult> {
      if (ciphertext.length < 32 || ciphertext.length % 16 !== 0) throw new Error("the ciphertext is not a whole number of AES blocks");
      const decipher = createDecipheriv(algorithm, key, ciphertext.subarray(0, 16));
      return { plaintext: Buffer.concat([decipher.update(ciphertext.subarray(16)), decipher.final()]), stale: false };
    },
  };
}

/** aesgcm: AES-GCM with a random 12-byte nonce and the storage key as authenticated data; nonce, ciphertext, 16-byte tag. */
export function aesGcmTransformer(prefix: string, key: Buffer): ValueTransformer {
  const algorithm = aesAlgorithm("gcm", key);
  return {
    prefix,
    encrypt: async (plaintext, context) => sealGcm(algorithm, key, plaintext, context),
    decrypt: async (ciphertext, context) => ({ plaintext: openGcm(algorithm, key, ciphertext, context), stale: false }),
  };
}

/** AES-GCM sealing shared with the KMS envelope: nonce(12) ‖ ciphertext ‖ tag(16), `context` authenticated. */
export function sealGcm(algorithm: string, key: Buffer, plaintext: Buffer, context: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv(algorithm, key, nonce) as CipherGCM;
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

export function openGcm(algorithm: string, key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < 28) throw new Error("the ciphertext is shorter than a nonce and a tag");
  const decipher = createDecipheriv(algorithm, key, sealed.subarray(0, 12)) as DecipherGCM;
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

/** secretbox: XSalsa20-Poly1305 (NaCl) with a 32-byte key; a random 24-byte nonce, then the box. */
export function secretboxTransformer(prefix: string, key: Buffer): ValueTransformer {
  const nacl = naclLibrary();
  if (key.length !== nacl.secretbox.keyLength) throw new Error(`a secretbox key must be ${nacl.secretbox.keyLength} bytes, not ${key.length}`);
  return {
    prefix,
    async encrypt(plaintext) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      return Buffer.concat([nonce, nacl.secretbox(plaintext, nonce, key)]);
    },
    async decrypt(ciphertext): Promise<DecryptResult> {
      const opened = nacl.secretbox.open(ciphertext.subarray(nacl.secretbox.nonceLength), ciphertext.subarray(0, nacl.secretbox.nonceLength), key);
      if (opened === null) throw new Error("the secretbox does not open with this key");
      return { plaintext: Buffer.from(opened), stale: false };
    },
  };
}
