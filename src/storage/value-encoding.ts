/**
 * How a backend that stores bytes (etcd) lays a store value out as the bytes etcd holds, and reads them back. The
 * Storage seam carries values as text (the registry's JSON); an encoding may store another form
 * (kube's protobuf envelope) as long as `decode(key, encode(key, value))` is the same object.
 * The composition root picks it; the default keeps the text as UTF-8.
 */
export interface ValueEncoding {
  /** The bytes etcd holds for `value` at store key `key` (deterministic: equal values, equal bytes). */
  encode(key: string, value: string): Uint8Array;
  /** The store value of the bytes etcd holds at `key`: every form `encode` writes, and UTF-8 text. Throws on bytes it cannot read. */
  decode(key: string, bytes: Uint8Array): string;
}

/** Values as UTF-8 text, as written (the default). */
export const UTF8_VALUES: ValueEncoding = {
  encode: (_key, value) => Buffer.from(value, "utf8"),
  decode: (_key, bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
};
