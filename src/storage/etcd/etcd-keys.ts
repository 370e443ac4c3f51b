/**
 * Keys as etcd sees them: UTF-8 bytes under the store's prefix. Byte order of UTF-8 is code point
 * order, so etcd's ranges list keys in the order every backend uses.
 */

/** etcd refuses an empty key; the smallest key, `\0`, starts a range at the beginning instead. */
export function encodeKey(prefix: string, key: string): Buffer {
  const bytes = Buffer.from(prefix + key, "utf8");
  return bytes.length === 0 ? Buffer.from([0]) : bytes;
}

/** The store key of an etcd key (the prefix removed). */
export function decodeKey(prefix: string, bytes: Uint8Array): string {
  const full = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return full.startsWith(prefix) ? full.slice(prefix.length) : full;
}

/** etcd's range end for "every key starting with bytes": the prefix with its last byte below 0xff raised by one; `\0` (to the end) when there is none. */
export function prefixEnd(bytes: Uint8Array): Buffer {
  if (bytes.length === 1 && bytes[0] === 0) return Buffer.from([0]); // the empty prefix, as encodeKey spells it
  const end = Buffer.from(bytes);
  for (let i = end.length - 1; i >= 0; i--) {
    const byte = end[i] as number;
    if (byte < 0xff) {
      end[i] = byte + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** The first key after `key` in byte order. */
export function keyAfter(bytes: Uint8Array): Buffer {
  return Buffer.concat([bytes, Buffer.from([0])]);
}
