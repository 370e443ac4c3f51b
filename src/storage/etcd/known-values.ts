/**
 * The newest value this store has seen for recently touched keys (its own writes and its watch
 * events), so an update can start from it instead of reading etcd first: kube's
 * `cachedExistingObject` in GuaranteedUpdate. An entry may be stale (another server wrote since);
 * the update's compare on the mod revision then fails and its failure branch brings the live
 * value, so staleness costs a retry, never a wrong write. Never newer than etcd: entries come from
 * answers and events. Bounded: the least recently used go past `maxEntries` or `maxBytes`.
 */
import type { EtcdKeyValue } from "./etcd-api.js";

export interface KnownValue {
  /** As etcd holds it (etcd revisions, the stored bytes). */
  readonly kv: EtcdKeyValue;
  /** The store's text of those bytes. */
  readonly value: string;
}

export class KnownValues {
  private readonly entries = new Map<string, KnownValue>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 1024,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** The value last seen for `key` (and marks it recently used). */
  get(key: string): KnownValue | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Records `key`'s value unless a newer one is known. */
  set(key: string, known: KnownValue): void {
    const previous = this.entries.get(key);
    if (previous !== undefined && previous.kv.modRevision > known.kv.modRevision) return;
    this.remove(key);
    this.entries.set(key, known);
    this.bytes += known.kv.value.byteLength + known.value.length;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.kv.value.byteLength + entry.value.length;
    }
  }

  /** Forgets `key` when it was deleted at etcd revision `revision` (a newer value stays). */
  deleted(key: string, revision: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.kv.modRevision < revision) this.remove(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.kv.value.byteLength + entry.value.length;
  }
}
