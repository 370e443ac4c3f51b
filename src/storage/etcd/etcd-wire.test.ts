import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type EtcdKeyValue, messageCodec, type RangeRequest, type RangeResponse, type TxnRequest, type TxnResponse, type WatchResponse } from "./etcd-api.js";
import { RANGE_REQUEST, RANGE_RESPONSE, TXN_REQUEST, TXN_RESPONSE, WATCH_RESPONSE } from "./etcd-wire.js";

// protobufjs with etcd's field numbers (etcd-api.ts) is the reference the hand-written codecs must agree with.
const reference = {
  rangeRequest: messageCodec<RangeRequest>("etcdserverpb.RangeRequest"),
  txnRequest: messageCodec<TxnRequest>("etcdserverpb.TxnRequest"),
  rangeResponse: messageCodec<Record<string, unknown>>("etcdserverpb.RangeResponse"),
  txnResponse: messageCodec<Record<string, unknown>>("etcdserverpb.TxnResponse"),
  watchResponse: messageCodec<Record<string, unknown>>("etcdserverpb.WatchResponse"),
};

const revision = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
const bytes = fc.oneof(fc.uint8Array({ maxLength: 20 }), fc.uint8Array({ minLength: 100, maxLength: 3000 })).map((array) => Buffer.from(array));
const optional = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arbitrary, { nil: undefined });

/** An object without its undefined properties (protobufjs and we both leave those out). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

const rangeRequest: fc.Arbitrary<RangeRequest> = fc
  .record({
    key: bytes,
    rangeEnd: optional(bytes),
    limit: optional(revision),
    revision: optional(revision),
    serializable: optional(fc.boolean()),
    keysOnly: optional(fc.boolean()),
    countOnly: optional(fc.boolean()),
  })
  .map(defined);

const compare = fc
  .record({
    result: fc.constantFrom("EQUAL", "GREATER", "LESS", "NOT_EQUAL" as const),
    target: fc.constantFrom("VERSION", "CREATE", "MOD", "VALUE" as const),
    key: bytes,
    number: revision,
    value: bytes,
  })
  .map(({ result, target, key, number, value }) => {
    switch (target) {
      case "VERSION":
        return { result, target, key, version: number };
      case "CREATE":
        return { result, target, key, createRevision: number };
      case "MOD":
        return { result, target, key, modRevision: number };
      case "VALUE":
        return { result, target, key, value };
    }
  });

const requestOp = fc.oneof(
  rangeRequest.map((requestRange) => ({ requestRange })),
  fc.record({ key: bytes, value: bytes, prevKv: optional(fc.boolean()) }).map((put) => ({ requestPut: defined(put) })),
  fc.record({ key: bytes, rangeEnd: optional(bytes), prevKv: optional(fc.boolean()) }).map((deletion) => ({ requestDeleteRange: defined(deletion) })),
);

const txnRequest: fc.Arbitrary<TxnRequest> = fc.record({
  compare: fc.array(compare, { maxLength: 3 }),
  success: fc.array(requestOp, { maxLength: 3 }),
  failure: fc.array(requestOp, { maxLength: 3 }),
});

const keyValue = fc.record({
  key: bytes,
  createRevision: revision,
  modRevision: revision,
  version: revision,
  value: bytes,
  // Not read by the store: must be skipped whatever its size.
  lease: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
});
// uint64 ids beyond 2^53 (etcd's are random 64-bit numbers): skipped, never misread.
const header = fc.record({ clusterId: fc.constant("18446744073709551615"), memberId: fc.constant("9372538179322589801"), revision, raftTerm: revision });
const rangeResponse = fc.record({ header, kvs: fc.array(keyValue, { maxLength: 4 }), more: fc.boolean(), count: revision });

/** The fields our shapes declare, from a protobufjs-decoded object, bytes as Buffers. */
function kv(value: Record<string, unknown>): EtcdKeyValue {
  return {
    key: Buffer.from(value["key"] as Uint8Array),
    createRevision: value["createRevision"] as number,
    modRevision: value["modRevision"] as number,
    version: value["version"] as number,
    value: Buffer.from(value["value"] as Uint8Array),
  };
}
const list = (value: unknown): Record<string, unknown>[] => value as Record<string, unknown>[];
const record = (value: unknown): Record<string, unknown> => value as Record<string, unknown>;
const headerOf = (value: unknown): { revision: number } => ({ revision: record(value)["revision"] as number });
function rangeOf(value: Record<string, unknown>): RangeResponse {
  return { header: headerOf(value["header"]), kvs: list(value["kvs"]).map(kv), more: value["more"] as boolean, count: value["count"] as number };
}
/** Buffers compared by content, whatever their class. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, field: unknown) => (field instanceof Uint8Array ? Buffer.from(field).toString("hex") : field)));
}

describe("etcd-wire", () => {
  it("writes RangeRequests byte for byte as protobufjs does", () => {
    fc.assert(
      fc.property(rangeRequest, (request) => {
        assert.deepEqual(RANGE_REQUEST.serialize(request), reference.rangeRequest.serialize(request));
      }),
      { numRuns: 300 },
    );
  });

  it("writes TxnRequests byte for byte as protobufjs does (the store's own writes among them)", () => {
    const key = Buffer.from("/registry/configmaps/default/a");
    const value = Buffer.alloc(1500, 7);
    const fixed: TxnRequest[] = [
      { compare: [{ result: "EQUAL", target: "CREATE", key, createRevision: 0 }], success: [{ requestPut: { key, value } }], failure: [] },
      {
        compare: [{ result: "EQUAL", target: "MOD", key, modRevision: 2 ** 40 + 3 }],
        success: [{ requestDeleteRange: { key } }],
        failure: [{ requestRange: { key } }],
      },
      {
        compare: [{ result: "GREATER", target: "CREATE", key, createRevision: 0 }],
        success: [{ requestDeleteRange: { key, prevKv: true } }],
        failure: [{ requestRange: { key } }],
      },
    ];
    for (const request of fixed) assert.deepEqual(TXN_REQUEST.serialize(request), reference.txnRequest.serialize(request));
    fc.assert(
      fc.property(txnRequest, (request) => {
        assert.deepEqual(TXN_REQUEST.serialize(request), reference.txnRequest.serialize(request));
      }),
      { numRuns: 300 },
    );
  });

  it("reads RangeResponses as protobufjs does, skipping fields the store does not read", () => {
    fc.assert(
      fc.property(rangeResponse, (response) => {
        const wire = reference.rangeResponse.serialize(response);
        assert.deepEqual(plain(RANGE_RESPONSE.deserialize(wire)), plain(rangeOf(reference.rangeResponse.deserialize(wire))));
      }),
      { numRuns: 200 },
    );
  });

  it("reads TxnResponses with every kind of ResponseOp", () => {
    const responseOp = fc.oneof(
      rangeResponse.map((responseRange) => ({ responseRange })),
      header.map((inner) => ({ responsePut: { header: inner } })),
      fc.record({ header, deleted: revision, prevKvs: fc.array(keyValue, { maxLength: 2 }) }).map((responseDeleteRange) => ({ responseDeleteRange })),
    );
    const txnResponse = fc.record({ header, succeeded: fc.boolean(), responses: fc.array(responseOp, { maxLength: 3 }) });
    fc.assert(
      fc.property(txnResponse, (response) => {
        const wire = reference.txnResponse.serialize(response);
        const theirs = reference.txnResponse.deserialize(wire);
        const expected: TxnResponse = {
          header: headerOf(theirs["header"]),
          succeeded: theirs["succeeded"] as boolean,
          responses: list(theirs["responses"]).map((op) => {
            if (op["responseRange"] !== undefined) return { responseRange: rangeOf(record(op["responseRange"])) };
            if (op["responsePut"] !== undefined) return { responsePut: { header: headerOf(record(op["responsePut"])["header"]) } };
            const deletion = record(op["responseDeleteRange"]);
            return {
              responseDeleteRange: { header: headerOf(deletion["header"]), deleted: deletion["deleted"] as number, prevKvs: list(deletion["prevKvs"]).map(kv) },
            };
          }),
        };
        assert.deepEqual(plain(TXN_RESPONSE.deserialize(wire)), plain(expected));
      }),
      { numRuns: 200 },
    );
  });

  it("reads WatchResponses: events with and without previous values, cancellation, compaction, progress", () => {
    const event = fc.record({ type: fc.constantFrom("PUT", "DELETE"), kv: keyValue, prevKv: fc.option(keyValue, { nil: undefined }) });
    const watchResponse = fc.record({
      header,
      watchId: fc.integer({ min: -1, max: 1000 }),
      created: fc.boolean(),
      canceled: fc.boolean(),
      compactRevision: revision,
      cancelReason: fc.string(),
      fragment: fc.boolean(),
      events: fc.array(event, { maxLength: 4 }),
    });
    fc.assert(
      fc.property(watchResponse, (response) => {
        const wire = reference.watchResponse.serialize(response);
        const theirs = reference.watchResponse.deserialize(wire);
        const expected: WatchResponse = {
          header: headerOf(theirs["header"]),
          watchId: theirs["watchId"] as number,
          created: theirs["created"] as boolean,
          canceled: theirs["canceled"] as boolean,
          compactRevision: theirs["compactRevision"] as number,
          cancelReason: theirs["cancelReason"] as string,
          fragment: theirs["fragment"] as boolean,
          events: list(theirs["events"]).map((entry) => ({
            type: entry["type"] as "PUT" | "DELETE",
            kv: entry["kv"] === null ? null : kv(record(entry["kv"])),
            prevKv: entry["prevKv"] === null ? null : kv(record(entry["prevKv"])),
          })),
        };
        assert.deepEqual(plain(WATCH_RESPONSE.deserialize(wire)), plain(expected));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a truncated message instead of reading past it", () => {
    const wire = reference.rangeResponse.serialize({ header: { revision: 5 }, kvs: [{ key: Buffer.from("k"), value: Buffer.alloc(200, 1) }], count: 1 });
    for (const cut of [1, 5, wire.length - 1]) assert.throws(() => RANGE_RESPONSE.deserialize(wire.subarray(0, cut)), RangeError);
  });
});
