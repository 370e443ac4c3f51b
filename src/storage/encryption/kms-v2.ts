import { randomBytes, randomUUID } from "node:crypto";
import type * as grpc from "@grpc/grpc-js";
import { lazyRequire } from "../../util/lazy-require.js";
import { openGcm, sealGcm } from "./ciphers.js";
import { ENCRYPTED_OBJECT, KMS_V2_SERVICE, type DecryptResponse, type EncryptResponse, type StatusResponse } from "./kms-v2-api.js";
import type { DecryptResult, ValueTransformer } from "./transformer.js";

/** gRPC, loaded when the first KMS provider is configured. */
const grpcLibrary = lazyRequire<typeof grpc>("@grpc/grpc-js");

const DEK_ALGORITHM = "aes-256-gcm";
/** Decrypted DEKs kept, keyed by their encrypted form; the oldest is dropped beyond this. */
const DEK_CACHE_SIZE = 1024;

export interface KmsV2Options {
  /** `unix:///path/to/socket` (grpc-js target syntax). */
  readonly endpoint: string;
  /** Deadline of each plugin call (the config's `timeout`, default 3 s). */
  readonly timeoutMs: number;
  /** How long a plugin's key id is trusted before Status is asked again (default 60 s, as kube polls). */
  readonly statusTtlMs?: number;
  readonly now?: () => number;
}

/** A KMS v2 provider: the transformer plus the plugin's health, for `/healthz/kms-providers`. */
export interface KmsV2Transformer extends ValueTransformer {
  /** Fails unless the plugin answers Status with healthz "ok". */
  checkHealth(): Promise<void>;
  close(): void;
}

interface DataKey {
  readonly key: Buffer;
  readonly encryptedDek: Uint8Array;
  readonly keyId: string;
  readonly annotations: Record<string, Uint8Array>;
}

/**
 * Envelope encryption through a KMS v2 plugin: values are sealed (AES-256-GCM, the storage key
 * authenticated) with a data key (DEK) that the plugin encrypts once; the stored envelope carries
 * the encrypted DEK and the plugin's key id. A new DEK is made when the plugin reports a new key id;
 * values sealed under an older key id read as stale, so a rewrite moves them to the new key.
 */
export function kmsV2Transformer(prefix: string, options: KmsV2Options): KmsV2Transformer {
  const library = grpcLibrary();
  const client = new library.Client(options.endpoint, library.credentials.createInsecure());
  const now = options.now ?? Date.now;
  const statusTtlMs = options.statusTtlMs ?? 60_000;
  const deks = new Map<string, Buffer>();
  let current: DataKey | undefined;
  let knownKeyId: string | undefined;
  let statusCheckedAt = Number.NEGATIVE_INFINITY;

  function call<Request, Response>(definition: grpc.MethodDefinition<Request, Response>, request: Request): Promise<Response> {
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        new library.Metadata(),
        { deadline: Date.now() + options.timeoutMs },
        (error, response) => {
          if (error !== null) reject(new Error(`KMS plugin ${options.endpoint}: ${error.details || error.message}`));
          else if (response === undefined) reject(new Error(`KMS plugin ${options.endpoint}: empty response`));
          else resolve(response);
        },
      );
    });
  }

  async function status(): Promise<StatusResponse> {
    const response = await call(KMS_V2_SERVICE.Status, {});
    if (response.version !== "v2" && response.version !== "v2beta1")
      throw new Error(`KMS plugin ${options.endpoint} speaks ${response.version || "no version"}, not v2`);
    if (response.healthz !== "ok") throw new Error(`KMS plugin ${options.endpoint} is unhealthy: ${response.healthz}`);
    if (response.keyId === "") throw new Error(`KMS plugin ${options.endpoint} reports an empty key id`);
    knownKeyId = response.keyId;
    statusCheckedAt = now();
    return response;
  }

  async function dataKey(): Promise<DataKey> {
    if (current === undefined || now() - statusCheckedAt >= statusTtlMs) {
      const { keyId } = await status();
      if (current !== undefined && current.keyId === keyId) return current;
      const key = randomBytes(32);
      const response: EncryptResponse = await call(KMS_V2_SERVICE.Encrypt, { plaintext: key, uid: randomUUID() });
      if (response.keyId === "") throw new Error(`KMS plugin ${options.endpoint} encrypted a data key without a key id`);
      current = { key, encryptedDek: response.ciphertext, keyId: response.keyId, annotations: response.annotations };
      knownKeyId = response.keyId;
      remember(Buffer.from(response.ciphertext).toString("base64"), key);
    }
    return current;
  }

  function remember(encryptedDek: string, key: Buffer): void {
    if (deks.size >= DEK_CACHE_SIZE) {
      const oldest = deks.keys().next();
      if (oldest.done !== true) deks.delete(oldest.value);
    }
    deks.set(encryptedDek, key);
  }

  return {
    prefix,
    async encrypt(plaintext, context) {
      const dek = await dataKey();
      return ENCRYPTED_OBJECT.serialize({
        encryptedData: sealGcm(DEK_ALGORITHM, dek.key, plaintext, context),
        keyId: dek.keyId,
        encryptedDek: dek.encryptedDek,
        annotations: dek.annotations,
      });
    },
    async decrypt(ciphertext, context): Promise<DecryptResult> {
      const envelope = ENCRYPTED_OBJECT.deserialize(ciphertext);
      if (envelope.encryptedDek.length === 0 || envelope.keyId === "") throw new Error("the envelope has no encrypted data key");
      const cacheKey = Buffer.from(envelope.encryptedDek).toString("base64");
      let key = deks.get(cacheKey);
      if (key === undefined) {
        const response: DecryptResponse = await call(KMS_V2_SERVICE.Decrypt, {
          ciphertext: envelope.encryptedDek,
          uid: randomUUID(),
          keyId: envelope.keyId,
          annotations: envelope.annotations,
        });
        key = Buffer.from(response.plaintext);
        remember(cacheKey, key);
      }
      if (knownKeyId === undefined || now() - statusCheckedAt >= statusTtlMs) await status().catch(() => undefined);
      const plaintext = openGcm(DEK_ALGORITHM, key, Buffer.from(envelope.encryptedData), context);
      return { plaintext, stale: knownKeyId !== undefined && envelope.keyId !== knownKeyId };
    },
    async checkHealth() {
      await status();
    },
    close() {
      client.close();
    },
  };
}
