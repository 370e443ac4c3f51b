/**
 * The part of etcd's v3 gRPC API this backend speaks (etcdserverpb.KV, etcdserverpb.Watch, and
 * Maintenance.Status for the database size), as a
 * protobufjs JSON descriptor with the wire's field numbers, and the decoded shapes as TypeScript
 * types. Only the fields we send or read are declared: protobuf skips unknown fields on decode.
 */
import type * as protobuf from "protobufjs";
import { lazyRequire } from "../../util/lazy-require.js";

const KEY_VALUE = {
  fields: {
    key: { type: "bytes", id: 1 },
    createRevision: { type: "int64", id: 2 },
    modRevision: { type: "int64", id: 3 },
    version: { type: "int64", id: 4 },
    value: { type: "bytes", id: 5 },
    lease: { type: "int64", id: 6 },
  },
};

const DESCRIPTOR: protobuf.INamespace = {
  nested: {
    mvccpb: {
      nested: {
        KeyValue: KEY_VALUE,
        Event: {
          fields: {
            type: { type: "EventType", id: 1 },
            kv: { type: "KeyValue", id: 2 },
            prevKv: { type: "KeyValue", id: 3 },
          },
          nested: { EventType: { values: { PUT: 0, DELETE: 1 } } },
        },
      },
    },
    etcdserverpb: {
      nested: {
        ResponseHeader: {
          fields: {
            clusterId: { type: "uint64", id: 1 },
            memberId: { type: "uint64", id: 2 },
            revision: { type: "int64", id: 3 },
            raftTerm: { type: "uint64", id: 4 },
          },
        },
        RangeRequest: {
          fields: {
            key: { type: "bytes", id: 1 },
            rangeEnd: { type: "bytes", id: 2 },
            limit: { type: "int64", id: 3 },
            revision: { type: "int64", id: 4 },
            serializable: { type: "bool", id: 7 },
            keysOnly: { type: "bool", id: 8 },
            countOnly: { type: "bool", id: 9 },
            minModRevision: { type: "int64", id: 10 },
          },
        },
        RangeResponse: {
          fields: {
            header: { type: "ResponseHeader", id: 1 },
            kvs: { rule: "repeated", type: "mvccpb.KeyValue", id: 2 },
            more: { type: "bool", id: 3 },
            count: { type: "int64", id: 4 },
          },
        },
        PutRequest: {
          fields: {
            key: { type: "bytes", id: 1 },
            value: { type: "bytes", id: 2 },
            lease: { type: "int64", id: 3 },
            prevKv: { type: "bool", id: 4 },
          },
        },
        PutResponse: {
          fields: { header: { type: "ResponseHeader", id: 1 }, prevKv: { type: "mvccpb.KeyValue", id: 2 } },
        },
        DeleteRangeRequest: {
          fields: { key: { type: "bytes", id: 1 }, rangeEnd: { type: "bytes", id: 2 }, prevKv: { type: "bool", id: 3 } },
        },
        DeleteRangeResponse: {
          fields: {
            header: { type: "ResponseHeader", id: 1 },
            deleted: { type: "int64", id: 2 },
            prevKvs: { rule: "repeated", type: "mvccpb.KeyValue", id: 3 },
          },
        },
        RequestOp: {
          oneofs: { request: { oneof: ["requestRange", "requestPut", "requestDeleteRange"] } },
          fields: {
            requestRange: { type: "RangeRequest", id: 1 },
            requestPut: { type: "PutRequest", id: 2 },
            requestDeleteRange: { type: "DeleteRangeRequest", id: 3 },
          },
        },
        ResponseOp: {
          oneofs: { response: { oneof: ["responseRange", "responsePut", "responseDeleteRange"] } },
          fields: {
            responseRange: { type: "RangeResponse", id: 1 },
            responsePut: { type: "PutResponse", id: 2 },
            responseDeleteRange: { type: "DeleteRangeResponse", id: 3 },
          },
        },
        Compare: {
          oneofs: { targetUnion: { oneof: ["version", "createRevision", "modRevision", "value"] } },
          fields: {
            result: { type: "CompareResult", id: 1 },
            target: { type: "CompareTarget", id: 2 },
            key: { type: "bytes", id: 3 },
            version: { type: "int64", id: 4 },
            createRevision: { type: "int64", id: 5 },
            modRevision: { type: "int64", id: 6 },
            value: { type: "bytes", id: 7 },
          },
          nested: {
            CompareResult: { values: { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } },
            CompareTarget: { values: { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 } },
          },
        },
        TxnRequest: {
          fields: {
            compare: { rule: "repeated", type: "Compare", id: 1 },
            success: { rule: "repeated", type: "RequestOp", id: 2 },
            failure: { rule: "repeated", type: "RequestOp", id: 3 },
          },
        },
        TxnResponse: {
          fields: {
            header: { type: "ResponseHeader", id: 1 },
            succeeded: { type: "bool", id: 2 },
            responses: { rule: "repeated", type: "ResponseOp", id: 3 },
          },
        },
        CompactionRequest: { fields: { revision: { type: "int64", id: 1 }, physical: { type: "bool", id: 2 } } },
        CompactionResponse: { fields: { header: { type: "ResponseHeader", id: 1 } } },
        StatusRequest: { fields: {} },
        StatusResponse: { fields: { header: { type: "ResponseHeader", id: 1 }, version: { type: "string", id: 2 }, dbSize: { type: "int64", id: 3 } } },
        WatchRequest: {
          oneofs: { requestUnion: { oneof: ["createRequest", "cancelRequest", "progressRequest"] } },
          fields: {
            createRequest: { type: "WatchCreateRequest", id: 1 },
            cancelRequest: { type: "WatchCancelRequest", id: 2 },
            progressRequest: { type: "WatchProgressRequest", id: 3 },
          },
        },
        WatchCreateRequest: {
          fields: {
            key: { type: "bytes", id: 1 },
            rangeEnd: { type: "bytes", id: 2 },
            startRevision: { type: "int64", id: 3 },
            progressNotify: { type: "bool", id: 4 },
            prevKv: { type: "bool", id: 6 },
          },
        },
        WatchCancelRequest: { fields: { watchId: { type: "int64", id: 1 } } },
        WatchProgressRequest: { fields: {} },
        WatchResponse: {
          fields: {
            header: { type: "ResponseHeader", id: 1 },
            watchId: { type: "int64", id: 2 },
            created: { type: "bool", id: 3 },
            canceled: { type: "bool", id: 4 },
            compactRevision: { type: "int64", id: 5 },
            cancelReason: { type: "string", id: 6 },
            fragment: { type: "bool", id: 7 },
            events: { rule: "repeated", type: "mvccpb.Event", id: 11 },
          },
        },
      },
    },
  },
};

const protobufLibrary = lazyRequire<typeof protobuf>("protobufjs");
let root: protobuf.Root | undefined;

/** The message type `name`, the descriptor parsed (and protobufjs loaded) at the first use. */
function lookupType(name: string): protobuf.Type {
  root ??= protobufLibrary().Root.fromJSON(DESCRIPTOR);
  return root.lookupType(name);
}

/** A message codec for grpc-js: encodes a plain object, decodes into one with defaults filled in. */
export interface MessageCodec<T> {
  serialize(value: T): Buffer;
  deserialize(bytes: Buffer): T;
}

/**
 * The codec of one message type. Decoded objects have every declared field (defaults filled, int64
 * as numbers: revisions stay far below 2^53), so the cast to T is the schema's promise.
 */
export function messageCodec<T extends object>(name: string): MessageCodec<T> {
  let type: protobuf.Type | undefined;
  const resolve = (): protobuf.Type => {
    type ??= lookupType(name);
    return type;
  };
  return {
    serialize: (value) => {
      const t = resolve();
      return Buffer.from(t.encode(t.fromObject(value as Record<string, unknown>)).finish());
    },
    deserialize: (bytes) => {
      const t = resolve();
      return t.toObject(t.decode(bytes), { longs: Number, enums: String, defaults: true, arrays: true }) as T;
    },
  };
}

export interface ResponseHeader {
  readonly revision: number;
  readonly memberId?: number;
}

export interface EtcdKeyValue {
  readonly key: Uint8Array;
  readonly createRevision: number;
  readonly modRevision: number;
  readonly version: number;
  readonly value: Uint8Array;
}

export interface RangeRequest {
  readonly key: Uint8Array;
  readonly rangeEnd?: Uint8Array;
  readonly limit?: number;
  readonly revision?: number;
  readonly serializable?: boolean;
  readonly keysOnly?: boolean;
  readonly countOnly?: boolean;
  /** Keys modified before it are left out of `kvs` (etcd filters after counting: `count` still counts them). */
  readonly minModRevision?: number;
}

export interface RangeResponse {
  readonly header: ResponseHeader;
  readonly kvs: readonly EtcdKeyValue[];
  readonly more: boolean;
  readonly count: number;
}

export interface PutRequest {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
  readonly prevKv?: boolean;
}

export interface PutResponse {
  readonly header: ResponseHeader;
}

export interface DeleteRangeRequest {
  readonly key: Uint8Array;
  readonly rangeEnd?: Uint8Array;
  readonly prevKv?: boolean;
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader;
  readonly deleted: number;
  readonly prevKvs: readonly EtcdKeyValue[];
}

export type RequestOp = { readonly requestRange: RangeRequest } | { readonly requestPut: PutRequest } | { readonly requestDeleteRange: DeleteRangeRequest };

export interface ResponseOp {
  readonly responseRange?: RangeResponse | null;
  readonly responsePut?: PutResponse | null;
  readonly responseDeleteRange?: DeleteRangeResponse | null;
}

export interface Compare {
  readonly result: "EQUAL" | "GREATER" | "LESS" | "NOT_EQUAL";
  readonly target: "VERSION" | "CREATE" | "MOD" | "VALUE";
  readonly key: Uint8Array;
  readonly version?: number;
  readonly createRevision?: number;
  readonly modRevision?: number;
  readonly value?: Uint8Array;
}

export interface TxnRequest {
  readonly compare: readonly Compare[];
  readonly success: readonly RequestOp[];
  readonly failure: readonly RequestOp[];
}

export interface TxnResponse {
  readonly header: ResponseHeader;
  readonly succeeded: boolean;
  readonly responses: readonly ResponseOp[];
}

export interface CompactionRequest {
  readonly revision: number;
  readonly physical?: boolean;
}

export interface CompactionResponse {
  readonly header: ResponseHeader;
}

/** Maintenance.Status: the member's version and the size of its backend database file. */
export interface StatusResponse {
  readonly header: ResponseHeader;
  readonly version: string;
  readonly dbSize: number;
}

export type WatchRequest =
  | {
      readonly createRequest: {
        readonly key: Uint8Array;
        readonly rangeEnd: Uint8Array;
        readonly startRevision: number;
        readonly progressNotify: boolean;
        readonly prevKv: boolean;
      };
    }
  | { readonly cancelRequest: { readonly watchId: number } }
  | { readonly progressRequest: Record<string, never> };

export interface EtcdEvent {
  readonly type: "PUT" | "DELETE";
  readonly kv: EtcdKeyValue | null;
  readonly prevKv: EtcdKeyValue | null;
}

export interface WatchResponse {
  readonly header: ResponseHeader;
  readonly watchId: number;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compactRevision: number;
  readonly cancelReason: string;
  readonly fragment: boolean;
  readonly events: readonly EtcdEvent[];
}
