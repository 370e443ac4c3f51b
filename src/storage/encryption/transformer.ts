/**
 * A value transformer: one provider of an EncryptionConfiguration, or one key of it. `prefix` is
 * written before the ciphertext so a read knows which transformer (and key) wrote a value; the
 * identity transformer's prefix is empty. `context` is the storage key: transformers that
 * authenticate it (aesgcm, kms) refuse a value copied under another key.
 */
export interface ValueTransformer {
  /** `<valuePrefix><provider>:<version>:<key name>:`, or "" for identity. */
  readonly prefix: string;
  encrypt(plaintext: Buffer, context: string): Promise<Buffer>;
  /** Fails (throws) when the value was not written with this transformer's key. */
  decrypt(ciphertext: Buffer, context: string): Promise<DecryptResult>;
}

export interface DecryptResult {
  readonly plaintext: Buffer;
  /** True when a rewrite would use newer key material even with the same transformer (kms key rotation). */
  readonly stale: boolean;
}

/** The providers that apply to one resource, in configuration order: the first one writes. */
export interface TransformerChain {
  readonly transformers: readonly ValueTransformer[];
  /** The profile's encrypted-value marker (`orch:enc:`): a value starting with it is never read as plain text. */
  readonly valuePrefix: string;
}

/** A read's outcome: the plain text, and whether the first transformer would write it differently. */
export interface DecodedValue {
  readonly plaintext: string;
  readonly stale: boolean;
}

/** Encrypts with the chain's first transformer; a stored value is `prefix + base64(ciphertext)` (identity: the plain text). */
export async function encodeValue(chain: TransformerChain, plaintext: string, context: string): Promise<string> {
  const writer = chain.transformers[0];
  if (writer === undefined || writer.prefix === "") return plaintext;
  const ciphertext = await writer.encrypt(Buffer.from(plaintext, "utf8"), context);
  return `${writer.prefix}${ciphertext.toString("base64")}`;
}

/**
 * Decrypts with the transformer whose prefix the value carries (identity reads values without the
 * marker, and only when it is configured). Stale = not written by the first transformer's key.
 */
export async function decodeValue(chain: TransformerChain, stored: string, context: string): Promise<DecodedValue> {
  const encrypted = stored.startsWith(chain.valuePrefix);
  for (const [index, transformer] of chain.transformers.entries()) {
    if (transformer.prefix === "") {
      if (encrypted) continue;
      return { plaintext: stored, stale: index !== 0 };
    }
    if (!stored.startsWith(transformer.prefix)) continue;
    let result: DecryptResult;
    try {
      result = await transformer.decrypt(Buffer.from(stored.slice(transformer.prefix.length), "base64"), context);
    } catch (error) {
      throw new Error(
        `failed to decrypt the stored value of ${context} with ${transformer.prefix.slice(0, -1)}: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    return { plaintext: result.plaintext.toString("utf8"), stale: index !== 0 || result.stale };
  }
  if (encrypted) {
    const marker = /^(?:[^:]*:){5}/.exec(stored.slice(0, 300))?.[0] ?? chain.valuePrefix;
    throw new Error(`no configured provider can read the stored value of ${context} (written by ${marker})`);
  }
  throw new Error(`the stored value of ${context} is not encrypted and the identity provider is not configured for it`);
}
