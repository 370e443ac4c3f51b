/**
 * The most recently used schema artifacts of custom resource versions, shared by every served
 * definition of one server. A served version keeps only how to read its schema again (the
 * CustomResourceDefinition as the watch cache holds it); its parsed `openAPIV3Schema`, schema
 * stage and merge structure are built on first use and kept here while they are among the
 * `limit` most recently used. Thousands of definitions then cost their stored JSON, not several
 * parsed forms of each schema (hundreds of KB per version), and the versions clients use stay
 * compiled.
 */
export class CompiledSchemas<T> {
  /** Each kept version with the tick of its last use (looked up several times per request: no reordering on use). */
  private readonly entries = new Map<string, { readonly value: T; used: number }>();
  private tick = 0;
  private readonly limit: number;

  /** `limit`: how many versions stay compiled at most (the least recently used one goes first). */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** The artifacts under `key`, built with `build` when not kept (and then kept). */
  get(key: string, build: () => T): T {
    const kept = this.entries.get(key);
    this.tick += 1;
    if (kept !== undefined) {
      kept.used = this.tick;
      return kept.value;
    }
    const made = build();
    this.entries.set(key, { value: made, used: this.tick });
    if (this.entries.size > this.limit) this.evictOldest();
    return made;
  }

  /** Drops the least recently used version (a scan: builds, which are far dearer, are the only callers). */
  private evictOldest(): void {
    let oldest: string | undefined;
    let oldestUse = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.entries) {
      if (entry.used < oldestUse) {
        oldest = key;
        oldestUse = entry.used;
      }
    }
    if (oldest !== undefined) this.entries.delete(oldest);
  }

  /** Drops every version of one definition (it was updated or deleted): keys start with `prefix`. */
  forget(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** How many custom resource versions stay compiled by default (each is one schema's parsed forms). */
export const DEFAULT_COMPILED_VERSIONS = 128;
