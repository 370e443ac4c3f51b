/**
 * A bounded map that forgets entries not used lately first (the "second chance" approximation
 * of LRU: a hit only marks the entry, so reads never reorder the map — a hot read path costs a
 * Map lookup). Entries may carry an expiry (ms since the epoch, as `now` counts): an expired
 * entry reads as absent and is dropped.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number; used: boolean }>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(capacity > 0)) throw new Error("LruCache capacity must be positive");
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    entry.used = true;
    return entry.value;
  }

  /** Stores a value until `expires` (default: never). */
  set(key: K, value: V, expires = Number.POSITIVE_INFINITY): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires, used: false });
    // Evict from the oldest end; an entry used since it was last looked at gets a second chance
    // at the young end instead. Each pass clears a mark, so this ends within two rounds.
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.entries().next();
      if (oldest.done === true) break;
      const [oldestKey, entry] = oldest.value;
      this.entries.delete(oldestKey);
      // The entry being stored is never the one evicted.
      if (entry.used || oldestKey === key) {
        entry.used = false;
        this.entries.set(oldestKey, entry);
      }
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
