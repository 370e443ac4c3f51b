/**
 * The byte-level pieces of `h2-unary.ts`'s HTTP/2 client (RFC 9113 frames, the HPACK literals its
 * requests are made of, gRPC's timeout and status headers), apart from the connection's state.
 */

/** The fields of grpc-js's ServiceError that `translateError` reads. */
export interface UnaryStatus {
  readonly code: number;
  readonly details: string;
  readonly message: string;
}

export type UnaryResult =
  | { readonly kind: "ok"; readonly message: Buffer }
  | { readonly kind: "status"; readonly status: UnaryStatus }
  /** The call never left this process: the caller may send it another way. */
  | { readonly kind: "unsent" };

export interface H2UnaryOptions {
  /** `http://host:port` or `https://host:port` (all one scheme). */
  readonly endpoints: readonly string[];
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  /** While streams are open: a PING this often (default 10 s), and how long its answer may take (default 2 s). */
  readonly keepalive?: { readonly intervalMs: number; readonly timeoutMs: number };
}

/** gRPC status codes used here (grpc/status.h). */
export const DEADLINE_EXCEEDED = 4;
export const UNAVAILABLE = 14;
export const INTERNAL = 13;

// RFC 9113 frame types, flags, settings and error codes.
export const DATA = 0;
export const HEADERS = 1;
export const RST_STREAM = 3;
export const SETTINGS = 4;
export const PUSH_PROMISE = 5;
export const PING = 6;
export const GOAWAY = 7;
export const WINDOW_UPDATE = 8;
export const CONTINUATION = 9;
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY_FLAG = 0x20;
export const SETTINGS_HEADER_TABLE_SIZE = 1;
export const SETTINGS_ENABLE_PUSH = 2;
export const SETTINGS_MAX_CONCURRENT_STREAMS = 3;
export const SETTINGS_INITIAL_WINDOW_SIZE = 4;
export const SETTINGS_MAX_FRAME_SIZE = 5;
export const REFUSED_STREAM = 7;
export const CANCEL = 8;
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
export const MAX_STREAM_ID = 2 ** 31 - 1;

export function writeFrameHeader(out: Buffer, at: number, length: number, type: number, flags: number, stream: number): number {
  out.writeUIntBE(length, at, 3);
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(stream, at + 5);
  return at + 9;
}

export function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(9 + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, stream);
  payload.copy(out, 9);
  return out;
}

export function uint32(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(value, 0);
  return out;
}

export function settingsPayload(...settings: readonly (readonly [number, number])[]): Buffer {
  const out = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], index) => {
    out.writeUInt16BE(id, 6 * index);
    out.writeUInt32BE(value, 6 * index + 2);
  });
  return out;
}

/** An HPACK string literal (no Huffman coding), its length as a 7-bit-prefix integer. */
export function literalValue(text: string): Buffer {
  const bytes = Buffer.from(text, "latin1");
  return Buffer.concat([hpackInteger(bytes.length, 7, 0), bytes]);
}

/** A literal header field without indexing whose name is static table entry `index` (below 15). */
export function literalWithIndexedName(index: number, value: string): Buffer {
  return Buffer.concat([Buffer.from([index]), literalValue(value)]);
}

export function literalNewName(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0]), literalValue(name), literalValue(value)]);
}

function hpackInteger(value: number, prefix: number, high: number): Buffer {
  const max = (1 << prefix) - 1;
  if (value < max) return Buffer.from([high | value]);
  const bytes = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** gRPC's timeout header: at most eight digits, so long deadlines go in seconds or hours. */
export function grpcTimeout(timeoutMs: number): string {
  const ms = Math.max(1, Math.ceil(timeoutMs));
  if (ms < 1e8) return `${ms}m`;
  const seconds = Math.ceil(ms / 1000);
  return seconds < 1e8 ? `${seconds}S` : `${Math.min(99_999_999, Math.ceil(seconds / 3600))}H`;
}

export function unavailable(details: string): UnaryStatus {
  return { code: UNAVAILABLE, details, message: `14 UNAVAILABLE: ${details}` };
}

/** The call's status from its trailers, or from its headers when etcd answered with trailers only; undefined when not there. */
export function statusOf(fields: readonly (readonly [string, string])[], inHeaders: boolean): UnaryStatus | undefined {
  let code: string | undefined;
  let raw: string | undefined;
  let http: string | undefined;
  for (const [name, value] of fields) {
    if (name === "grpc-status") code = value;
    else if (name === "grpc-message") raw = value;
    else if (name === ":status") http = value;
  }
  if (code === undefined) {
    if (inHeaders && http !== undefined && http !== "200") return unavailable(`HTTP status ${http}`);
    return inHeaders ? undefined : unavailable("trailers without grpc-status");
  }
  const details = raw === undefined ? "" : percentDecoded(raw);
  return { code: Number(code), details, message: `${code} ${details}` };
}

/** grpc-message is percent-encoded UTF-8. */
function percentDecoded(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
