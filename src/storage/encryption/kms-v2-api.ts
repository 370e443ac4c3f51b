/**
 * The KMS v2 plugin API (`v2.KeyManagementService`: Status, Encrypt, Decrypt) as a protobufjs JSON
 * descriptor with the wire's field numbers, the grpc-js service definition built from it, and the
 * envelope this server stores (the encrypted DEK and the plugin's key id beside the data).
 */
import type * as grpc from "@grpc/grpc-js";
import type * as protobuf from "protobufjs";
import { lazyRequire } from "../../util/lazy-require.js";

/** A `map<string, bytes>` field (protobufjs reads `keyType` as a map field; its JSON types omit it). */
function bytesMap(id: number): protobuf.IField {
  const field: protobuf.IField & { keyType: string } = { keyType: "string", type: "bytes", id };
  return field;
}

const DESCRIPTOR: protobuf.INamespace = {
  nested: {
    v2: {
      nested: {
        StatusRequest: { fields: {} },
        StatusResponse: { fields: { version: { type: "string", id: 1 }, healthz: { type: "string", id: 2 }, keyId: { type: "string", id: 3 } } },
        DecryptRequest: {
          fields: {
            ciphertext: { type: "bytes", id: 1 },
            uid: { type: "string", id: 2 },
            keyId: { type: "string", id: 3 },
            annotations: bytesMap(4),
          },
        },
        DecryptResponse: { fields: { plaintext: { type: "bytes", id: 1 } } },
        EncryptRequest: { fields: { plaintext: { type: "bytes", id: 1 }, uid: { type: "string", id: 2 } } },
        EncryptResponse: {
          fields: {
            ciphertext: { type: "bytes", id: 1 },
            keyId: { type: "string", id: 2 },
            annotations: bytesMap(3),
          },
        },
      },
    },
    orchenvelope: {
      nested: {
        EncryptedObject: {
          fields: {
            encryptedData: { type: "bytes", id: 1 },
            keyId: { type: "string", id: 2 },
            encryptedDek: { type: "bytes", id: 3 },
            annotations: bytesMap(4),
          },
        },
      },
    },
  },
};

const protobufLibrary = lazyRequire<typeof protobuf>("protobufjs");
let root: protobuf.Root | undefined;

export interface StatusResponse {
  readonly version: string;
  readonly healthz: string;
  readonly keyId: string;
}
export interface EncryptRequest {
  readonly plaintext: Uint8Array;
  readonly uid: string;
}
export interface EncryptResponse {
  readonly ciphertext: Uint8Array;
  readonly keyId: string;
  readonly annotations: Record<string, Uint8Array>;
}
export interface DecryptRequest {
  readonly ciphertext: Uint8Array;
  readonly uid: string;
  readonly keyId: string;
  readonly annotations: Record<string, Uint8Array>;
}
export interface DecryptResponse {
  readonly plaintext: Uint8Array;
}
/** What a kms value holds after its prefix: the data sealed with a DEK, and the DEK sealed by the plugin. */
export interface EncryptedObject {
  readonly encryptedData: Uint8Array;
  readonly keyId: string;
  readonly encryptedDek: Uint8Array;
  readonly annotations: Record<string, Uint8Array>;
}

function codec<T extends object>(name: string): { serialize(value: T): Buffer; deserialize(bytes: Buffer): T } {
  // The descriptor is parsed (and protobufjs loaded) at the first message: a server without KMS never pays for it.
  let type: protobuf.Type | undefined;
  const resolve = (): protobuf.Type => {
    root ??= protobufLibrary().Root.fromJSON(DESCRIPTOR);
    type ??= root.lookupType(name);
    return type;
  };
  return {
    serialize: (value) => {
      const t = resolve();
      return Buffer.from(t.encode(t.fromObject(value as Record<string, unknown>)).finish());
    },
    deserialize: (bytes) => {
      const t = resolve();
      return t.toObject(t.decode(bytes), { defaults: true, objects: true }) as T;
    },
  };
}

export const ENCRYPTED_OBJECT = codec<EncryptedObject>("orchenvelope.EncryptedObject");

function method<Request extends object, Response extends object>(name: string, request: string, response: string) {
  const requestCodec = codec<Request>(request);
  const responseCodec = codec<Response>(response);
  return {
    path: `/v2.KeyManagementService/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: requestCodec.serialize,
    requestDeserialize: requestCodec.deserialize,
    responseSerialize: responseCodec.serialize,
    responseDeserialize: responseCodec.deserialize,
  } as const;
}

/** The service definition, for the client here and for plugins (the tests' loopback plugin). */
export const KMS_V2_SERVICE = {
  Status: method<Record<string, never>, StatusResponse>("Status", "v2.StatusRequest", "v2.StatusResponse"),
  Encrypt: method<EncryptRequest, EncryptResponse>("Encrypt", "v2.EncryptRequest", "v2.EncryptResponse"),
  Decrypt: method<DecryptRequest, DecryptResponse>("Decrypt", "v2.DecryptRequest", "v2.DecryptResponse"),
} satisfies grpc.ServiceDefinition;
