import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import {
  KMS_V2_SERVICE,
  type DecryptRequest,
  type DecryptResponse,
  type EncryptRequest,
  type EncryptResponse,
  type StatusResponse,
} from "../storage/encryption/index.js";

/** A loopback KMS v2 plugin for tests: keys held in memory, one per key id, served on a unix socket. */
export interface KmsPlugin {
  /** `unix://<socket>`, for an EncryptionConfiguration's `kms.endpoint`. */
  readonly endpoint: string;
  /** Calls answered so far. */
  readonly calls: { encrypt: number; decrypt: number; status: number };
  /** Switches to a new key id (old ids still decrypt, as a real KMS keeps old key versions). */
  rotate(keyId: string): void;
  /** Makes Status report unhealthy (or healthy again). */
  setHealthy(healthy: boolean): void;
  stop(): Promise<void>;
}

export async function startKmsPlugin(socketPath: string, firstKeyId = "key-1"): Promise<KmsPlugin> {
  const keys = new Map<string, Buffer>([[firstKeyId, randomBytes(32)]]);
  let keyId = firstKeyId;
  let healthy = true;
  const calls = { encrypt: 0, decrypt: 0, status: 0 };
  const server = new grpc.Server();
  server.addService(KMS_V2_SERVICE, {
    Status: (_call: grpc.ServerUnaryCall<unknown, StatusResponse>, callback: grpc.sendUnaryData<StatusResponse>) => {
      calls.status++;
      callback(null, { version: "v2", healthz: healthy ? "ok" : "plugin is sick", keyId });
    },
    Encrypt: (call: grpc.ServerUnaryCall<EncryptRequest, EncryptResponse>, callback: grpc.sendUnaryData<EncryptResponse>) => {
      calls.encrypt++;
      const key = keys.get(keyId) ?? Buffer.alloc(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(call.request.plaintext), cipher.final()]);
      callback(null, { ciphertext: Buffer.concat([iv, body, cipher.getAuthTag()]), keyId, annotations: {} });
    },
    Decrypt: (call: grpc.ServerUnaryCall<DecryptRequest, DecryptResponse>, callback: grpc.sendUnaryData<DecryptResponse>) => {
      calls.decrypt++;
      const key = keys.get(call.request.keyId);
      if (key === undefined) {
        callback({ code: grpc.status.NOT_FOUND, details: `unknown key id ${call.request.keyId}` });
        return;
      }
      try {
        const sealed = Buffer.from(call.request.ciphertext);
        const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        callback(null, { plaintext: Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]) });
      } catch (error) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: String(error) });
      }
    },
  });
  const endpoint = `unix://${socketPath}`;
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(endpoint, grpc.ServerCredentials.createInsecure(), (error) => (error === null ? resolve() : reject(error))),
  );
  return {
    endpoint,
    calls,
    rotate(next) {
      keys.set(next, randomBytes(32));
      keyId = next;
    },
    setHealthy(next) {
      healthy = next;
    },
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
