/**
 * A bounded map that forgets the least recently used entry first. Entries may carry an expiry
 * (ms since the epoch, as `now` counts): an expired entry reads as absent and is dropped.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

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
    // Re-inserting moves the key to the end of the Map's order: most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores a value until `expires` (default: never). */
  set(key: K, value: V, expires = Number.POSITIVE_INFINITY): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
