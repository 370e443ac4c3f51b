/**
 * Hand-written protobuf for the etcd messages on every write's and every watch event's path:
 * RangeRequest and TxnRequest out, RangeResponse, TxnResponse and WatchResponse in. The rest of
 * etcd's API (Compaction, Status, WatchRequest) stays with the protobufjs descriptor in
 * `etcd-api.ts`, which also checks this file (`etcd-wire.test.ts`: byte-equal requests, equal
 * decoded responses).
 *
 * Why by hand: protobufjs's generic path (`fromObject` + `encode`, `decode` + `toObject` with
 * defaults) cost ~45 µs of CPU per create's Txn and per watch event together in the server's
 * profile — a copy of every message into protobufjs's own objects and back, a writer with a chunk
 * list, long-number conversions — for a handful of fixed fields. Here a request is sized first and
 * written into one Buffer; a response is read in one pass into the plain shapes `etcd-api.ts`
 * declares (fields not declared there are skipped), keys and values as views of the received
 * message, int64 as numbers (revisions stay far below 2^53).
 *
 * Encoding follows protobufjs's rule for the plain objects we pass: a field that is present (not
 * undefined) is written, zero or not, in ascending field number; absent fields are left out.
 */
import type {
  Compare,
  EtcdEvent,
  EtcdKeyValue,
  MessageCodec,
  RangeRequest,
  RangeResponse,
  RequestOp,
  ResponseHeader,
  ResponseOp,
  TxnRequest,
  TxnResponse,
  WatchResponse,
} from "./etcd-api.js";

const VARINT = 0;
const BIT64 = 1;
const LENGTH_DELIMITED = 2;
const BIT32 = 5;

const COMPARE_RESULT = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;
const COMPARE_TARGET = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 } as const;

// ---- writing ----

/** Bytes of a varint of a non-negative safe integer (negative int64s take ten). */
function varintSize(value: number): number {
  if (value < 0) return 10;
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function intSize(value: number): number {
  if (!Number.isSafeInteger(value)) throw new RangeError(`etcd request: ${String(value)} is not an integer`);
  return varintSize(value);
}

/** A field's size: tag (our field numbers are all below 16: one byte) and its payload. */
const tagged = (payload: number): number => 1 + payload;
const lengthField = (length: number): number => tagged(varintSize(length) + length);

class Writer {
  readonly buffer: Buffer;
  private at = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  tag(field: number, wireType: number): void {
    this.buffer[this.at++] = (field << 3) | wireType;
  }

  varint(value: number): void {
    if (value < 0) {
      // Two's complement in ten bytes, as protobuf writes a negative int64.
      let big = BigInt.asUintN(64, BigInt(value));
      for (let index = 0; index < 9; index++) {
        this.buffer[this.at++] = Number(big & 0x7fn) | 0x80;
        big >>= 7n;
      }
      this.buffer[this.at++] = Number(big);
      return;
    }
    while (value >= 128) {
      this.buffer[this.at++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buffer[this.at++] = value;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.buffer.set(value, this.at);
    this.at += value.length;
  }

  intField(field: number, value: number | undefined): void {
    if (value === undefined) return;
    this.tag(field, VARINT);
    this.varint(value);
  }

  boolField(field: number, value: boolean | undefined): void {
    if (value === undefined) return;
    this.tag(field, VARINT);
    this.buffer[this.at++] = value ? 1 : 0;
  }

  bytesField(field: number, value: Uint8Array | undefined): void {
    if (value === undefined) return;
    this.tag(field, LENGTH_DELIMITED);
    this.bytes(value);
  }

  /** A nested message of `size` bytes written by `write`. */
  messageField(field: number, size: number, write: () => void): void {
    this.tag(field, LENGTH_DELIMITED);
    this.varint(size);
    const end = this.at + size;
    write();
    if (this.at !== end) throw new Error(`etcd request: message sized ${size} bytes, wrote ${size + this.at - end}`);
  }

  finish(): Buffer {
    if (this.at !== this.buffer.length) throw new Error(`etcd request: sized ${this.buffer.length} bytes, wrote ${this.at}`);
    return this.buffer;
  }
}

const optInt = (value: number | undefined): number => (value === undefined ? 0 : tagged(intSize(value)));
const optBool = (value: boolean | undefined): number => (value === undefined ? 0 : 2);
const optBytes = (value: Uint8Array | undefined): number => (value === undefined ? 0 : lengthField(value.length));

function rangeRequestSize(request: RangeRequest): number {
  return (
    optBytes(request.key) +
    optBytes(request.rangeEnd) +
    optInt(request.limit) +
    optInt(request.revision) +
    optBool(request.serializable) +
    optBool(request.keysOnly) +
    optBool(request.countOnly) +
    optInt(request.minModRevision)
  );
}

function writeRangeRequest(writer: Writer, request: RangeRequest): void {
  writer.bytesField(1, request.key);
  writer.bytesField(2, request.rangeEnd);
  writer.intField(3, request.limit);
  writer.intField(4, request.revision);
  writer.boolField(7, request.serializable);
  writer.boolField(8, request.keysOnly);
  writer.boolField(9, request.countOnly);
  writer.intField(10, request.minModRevision);
}

function compareSize(compare: Compare): number {
  return (
    tagged(1) +
    tagged(1) +
    optBytes(compare.key) +
    optInt(compare.version) +
    optInt(compare.createRevision) +
    optInt(compare.modRevision) +
    optBytes(compare.value)
  );
}

function writeCompare(writer: Writer, compare: Compare): void {
  writer.intField(1, COMPARE_RESULT[compare.result]);
  writer.intField(2, COMPARE_TARGET[compare.target]);
  writer.bytesField(3, compare.key);
  writer.intField(4, compare.version);
  writer.intField(5, compare.createRevision);
  writer.intField(6, compare.modRevision);
  writer.bytesField(7, compare.value);
}

/** The field number and size of a RequestOp's one member. */
function requestOpInner(op: RequestOp): { readonly field: number; readonly size: number } {
  if ("requestRange" in op) return { field: 1, size: rangeRequestSize(op.requestRange) };
  if ("requestPut" in op) {
    const put = op.requestPut;
    return { field: 2, size: optBytes(put.key) + optBytes(put.value) + optBool(put.prevKv) };
  }
  const deletion = op.requestDeleteRange;
  return { field: 3, size: optBytes(deletion.key) + optBytes(deletion.rangeEnd) + optBool(deletion.prevKv) };
}

function requestOpSize(op: RequestOp): number {
  return lengthField(requestOpInner(op).size);
}

function writeRequestOp(writer: Writer, op: RequestOp): void {
  const { field, size } = requestOpInner(op);
  writer.messageField(field, size, () => {
    if ("requestRange" in op) {
      writeRangeRequest(writer, op.requestRange);
    } else if ("requestPut" in op) {
      writer.bytesField(1, op.requestPut.key);
      writer.bytesField(2, op.requestPut.value);
      writer.boolField(4, op.requestPut.prevKv);
    } else {
      writer.bytesField(1, op.requestDeleteRange.key);
      writer.bytesField(2, op.requestDeleteRange.rangeEnd);
      writer.boolField(3, op.requestDeleteRange.prevKv);
    }
  });
}

function txnRequestSize(request: TxnRequest): number {
  let size = 0;
  for (const compare of request.compare) size += lengthField(compareSize(compare));
  for (const op of request.success) size += lengthField(requestOpSize(op));
  for (const op of request.failure) size += lengthField(requestOpSize(op));
  return size;
}

function writeTxnRequest(writer: Writer, request: TxnRequest): void {
  for (const compare of request.compare) writer.messageField(1, compareSize(compare), () => writeCompare(writer, compare));
  for (const op of request.success) writer.messageField(2, requestOpSize(op), () => writeRequestOp(writer, op));
  for (const op of request.failure) writer.messageField(3, requestOpSize(op), () => writeRequestOp(writer, op));
}

// ---- reading ----

class Reader {
  at: number;

  constructor(
    readonly buffer: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.at = start;
  }

  get more(): boolean {
    return this.at < this.end;
  }

  byte(): number {
    if (this.at >= this.end) throw new RangeError("etcd response: truncated message");
    return this.buffer[this.at++] as number;
  }

  /** A varint as a number: exact below 2^53, int64 two's complement for negative values. */
  varint(): number {
    let byte = this.byte();
    if (byte < 0x80) return byte;
    let low = byte & 0x7f;
    // The low 32 bits and the high 32 bits apart, as protobuf's own readers do.
    for (let shift = 7; shift < 28; shift += 7) {
      byte = this.byte();
      low |= (byte & 0x7f) << shift;
      if (byte < 0x80) return low;
    }
    byte = this.byte();
    low = (low | ((byte & 0x7f) << 28)) >>> 0;
    let high = (byte & 0x7f) >> 4;
    for (let shift = 3; byte >= 0x80; shift += 7) {
      if (shift > 31) throw new RangeError("etcd response: varint longer than ten bytes");
      byte = this.byte();
      high |= (byte & 0x7f) << shift;
    }
    high >>>= 0;
    if (high < 0x80000000) return high * 2 ** 32 + low;
    // Negative: minus the two's complement.
    const negLow = (~low + 1) >>> 0;
    const negHigh = (~high + (negLow === 0 ? 1 : 0)) >>> 0;
    return -(negHigh * 2 ** 32 + negLow);
  }

  /** The bounds of a length-delimited field's payload (the reader moves past it). */
  length(): number {
    const length = this.varint();
    if (length < 0 || this.at + length > this.end) throw new RangeError("etcd response: length past the message's end");
    return length;
  }

  bytes(): Buffer {
    const length = this.length();
    const start = this.at;
    this.at += length;
    return this.buffer.subarray(start, this.at);
  }

  string(): string {
    const length = this.length();
    const start = this.at;
    this.at += length;
    return this.buffer.toString("utf8", start, this.at);
  }

  /** A reader over the nested message that starts here (this reader moves past it). */
  nested(): Reader {
    const length = this.length();
    const inner = new Reader(this.buffer, this.at, this.at + length);
    this.at += length;
    return inner;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case BIT64:
        this.advance(8);
        return;
      case LENGTH_DELIMITED:
        this.advance(this.length());
        return;
      case BIT32:
        this.advance(4);
        return;
      default:
        throw new RangeError(`etcd response: unsupported wire type ${wireType}`);
    }
  }

  private advance(count: number): void {
    if (this.at + count > this.end) throw new RangeError("etcd response: truncated message");
    this.at += count;
  }
}

/** Reads the fields of one message: `field` handles the ones it knows and answers false for the rest (skipped). */
function readFields(reader: Reader, field: (number: number, wireType: number) => boolean): void {
  while (reader.more) {
    const tag = reader.varint();
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new RangeError("etcd response: field number 0");
    if (!field(number, wireType)) reader.skip(wireType);
  }
}

function readHeader(reader: Reader): ResponseHeader {
  let revision = 0;
  readFields(reader, (number, wireType) => {
    if (number === 3 && wireType === VARINT) {
      revision = reader.varint();
      return true;
    }
    return false;
  });
  return { revision };
}

const EMPTY = Buffer.alloc(0);
const NO_HEADER: ResponseHeader = { revision: 0 };

function readKeyValue(reader: Reader): EtcdKeyValue {
  let key: Buffer = EMPTY;
  let value: Buffer = EMPTY;
  let createRevision = 0;
  let modRevision = 0;
  let version = 0;
  readFields(reader, (number, wireType) => {
    if (wireType === LENGTH_DELIMITED && (number === 1 || number === 5)) {
      if (number === 1) key = reader.bytes();
      else value = reader.bytes();
      return true;
    }
    if (wireType !== VARINT) return false;
    if (number === 2) createRevision = reader.varint();
    else if (number === 3) modRevision = reader.varint();
    else if (number === 4) version = reader.varint();
    else return false;
    return true;
  });
  return { key, createRevision, modRevision, version, value };
}

function readRangeResponse(reader: Reader): RangeResponse {
  let header = NO_HEADER;
  const kvs: EtcdKeyValue[] = [];
  let more = false;
  let count = 0;
  readFields(reader, (number, wireType) => {
    if (wireType === LENGTH_DELIMITED && number === 1) header = readHeader(reader.nested());
    else if (wireType === LENGTH_DELIMITED && number === 2) kvs.push(readKeyValue(reader.nested()));
    else if (wireType === VARINT && number === 3) more = reader.varint() !== 0;
    else if (wireType === VARINT && number === 4) count = reader.varint();
    else return false;
    return true;
  });
  return { header, kvs, more, count };
}

function readResponseOp(reader: Reader): ResponseOp {
  let op: ResponseOp = {};
  readFields(reader, (number, wireType) => {
    if (wireType !== LENGTH_DELIMITED) return false;
    if (number === 1) {
      op = { responseRange: readRangeResponse(reader.nested()) };
    } else if (number === 2) {
      const nested = reader.nested();
      let header = NO_HEADER;
      readFields(nested, (inner, innerWire) => {
        if (inner !== 1 || innerWire !== LENGTH_DELIMITED) return false;
        header = readHeader(nested.nested());
        return true;
      });
      op = { responsePut: { header } };
    } else if (number === 3) {
      const nested = reader.nested();
      let header = NO_HEADER;
      let deleted = 0;
      const prevKvs: EtcdKeyValue[] = [];
      readFields(nested, (inner, innerWire) => {
        if (inner === 1 && innerWire === LENGTH_DELIMITED) header = readHeader(nested.nested());
        else if (inner === 2 && innerWire === VARINT) deleted = nested.varint();
        else if (inner === 3 && innerWire === LENGTH_DELIMITED) prevKvs.push(readKeyValue(nested.nested()));
        else return false;
        return true;
      });
      op = { responseDeleteRange: { header, deleted, prevKvs } };
    } else {
      return false;
    }
    return true;
  });
  return op;
}

function readTxnResponse(reader: Reader): TxnResponse {
  let header = NO_HEADER;
  let succeeded = false;
  const responses: ResponseOp[] = [];
  readFields(reader, (number, wireType) => {
    if (wireType === LENGTH_DELIMITED && number === 1) header = readHeader(reader.nested());
    else if (wireType === VARINT && number === 2) succeeded = reader.varint() !== 0;
    else if (wireType === LENGTH_DELIMITED && number === 3) responses.push(readResponseOp(reader.nested()));
    else return false;
    return true;
  });
  return { header, succeeded, responses };
}

function readEvent(reader: Reader): EtcdEvent {
  let type: EtcdEvent["type"] = "PUT";
  let kv: EtcdKeyValue | null = null;
  let prevKv: EtcdKeyValue | null = null;
  readFields(reader, (number, wireType) => {
    if (wireType === VARINT && number === 1) type = reader.varint() === 1 ? "DELETE" : "PUT";
    else if (wireType === LENGTH_DELIMITED && number === 2) kv = readKeyValue(reader.nested());
    else if (wireType === LENGTH_DELIMITED && number === 3) prevKv = readKeyValue(reader.nested());
    else return false;
    return true;
  });
  return { type, kv, prevKv };
}

function readWatchResponse(reader: Reader): WatchResponse {
  let header = NO_HEADER;
  let watchId = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = "";
  let fragment = false;
  const events: EtcdEvent[] = [];
  readFields(reader, (number, wireType) => {
    if (wireType === LENGTH_DELIMITED) {
      if (number === 1) header = readHeader(reader.nested());
      else if (number === 6) cancelReason = reader.string();
      else if (number === 11) events.push(readEvent(reader.nested()));
      else return false;
      return true;
    }
    if (wireType !== VARINT) return false;
    if (number === 2) watchId = reader.varint();
    else if (number === 3) created = reader.varint() !== 0;
    else if (number === 4) canceled = reader.varint() !== 0;
    else if (number === 5) compactRevision = reader.varint();
    else if (number === 7) fragment = reader.varint() !== 0;
    else return false;
    return true;
  });
  return { header, watchId, created, canceled, compactRevision, cancelReason, fragment, events };
}

function codec<T>(size: (value: T) => number, write: (writer: Writer, value: T) => void, read: (reader: Reader) => T): MessageCodec<T> {
  return {
    serialize(value) {
      const writer = new Writer(size(value));
      write(writer, value);
      return writer.finish();
    },
    deserialize(bytes) {
      return read(new Reader(bytes, 0, bytes.length));
    },
  };
}

const refuse = (name: string) => (): never => {
  throw new Error(`etcd-wire: ${name} is only read, never written`);
};

export const RANGE_REQUEST: MessageCodec<RangeRequest> = codec(rangeRequestSize, writeRangeRequest, refuse("RangeRequest decoding"));
export const TXN_REQUEST: MessageCodec<TxnRequest> = codec(txnRequestSize, writeTxnRequest, refuse("TxnRequest decoding"));
export const RANGE_RESPONSE: MessageCodec<RangeResponse> = codec(refuse("RangeResponse"), refuse("RangeResponse"), readRangeResponse);
export const TXN_RESPONSE: MessageCodec<TxnResponse> = codec(refuse("TxnResponse"), refuse("TxnResponse"), readTxnResponse);
export const WATCH_RESPONSE: MessageCodec<WatchResponse> = codec(refuse("WatchResponse"), refuse("WatchResponse"), readWatchResponse);
