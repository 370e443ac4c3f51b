/**
 * The values this server wrote to etcd, kept from the write until its watch event comes back, so
 * the event carries the text that was written instead of a fresh decode of etcd's bytes (kube's
 * protobuf form: a decode and a JSON encode per event, ~25–40 µs of CPU for a 1 KiB ConfigMap).
 *
 * The contract: `take` returns a remembered text only when the event's bytes equal, byte for byte,
 * the bytes written for that key. A value encoding is deterministic and `decode(encode(text))` is
 * the same object as `text` (value-encoding.ts), so the answer is what decoding would have given;
 * an event for another writer's value, an older write of the key or a write that failed is
 * decoded as before. Entries leave on a match (the cache's one watch over every key consumes
 * them), when a write fails, and, oldest first, past `maxEntries` or `maxBytes` (writes whose event
 * no watch took).
 */

interface Written {
  readonly bytes: Uint8Array;
  readonly value: string;
}

export class RecentWrites {
  private readonly entries = new Map<string, Written>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 1024,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** Remembers that `value` was written to `key` as `bytes` (before the write is sent: its event may come back before its answer). */
  remember(key: string, bytes: Uint8Array, value: string): void {
    this.drop(key);
    this.entries.set(key, { bytes, value });
    this.bytes += bytes.byteLength;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes.byteLength;
    }
  }

  /** Forgets the write of `bytes` to `key` (it failed), unless a newer write replaced it. */
  forget(key: string, bytes: Uint8Array): void {
    if (this.entries.get(key)?.bytes === bytes) this.drop(key);
  }

  /** The text written to `key` when `bytes` are exactly the bytes written; the entry is used up. */
  take(key: string, bytes: Uint8Array): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || !Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength).equals(bytes)) return undefined;
    this.drop(key);
    return entry.value;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes.byteLength;
  }
}
