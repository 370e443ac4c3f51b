import type { WatchFilter } from "./cache-watcher.js";

/**
 * Watcher groups indexed by what their filter's key part names: one object's key, or a
 * collection prefix (the resource's, or a namespace's). An event is offered only to the groups
 * filed under its key or under a prefix of it, found by lookups, not by a scan of every group:
 * with 1,000 watchers on 1,000 namespaces an event meets the one or two whose namespace it is in.
 * Label and field selectors are still evaluated per candidate group.
 */
export class WatcherIndex<Group extends { readonly filter: WatchFilter }> {
  private readonly byKey = new Map<string, Set<Group>>();
  private readonly byPrefix = new Map<string, Set<Group>>();
  /** Groups whose prefix is not a `/`-ended prefix under the root: offered every event. */
  private readonly others = new Map<string, Set<Group>>();
  private sizeValue = 0;

  /** `root`: the resource's prefix; every key the index is asked about is under it. */
  constructor(private readonly root: string) {}

  get size(): number {
    return this.sizeValue;
  }

  add(group: Group): void {
    const { map, key } = this.slot(group);
    let set = map.get(key);
    if (set === undefined) {
      set = new Set();
      map.set(key, set);
    }
    if (!set.has(group)) this.sizeValue++;
    set.add(group);
  }

  delete(group: Group): void {
    const { map, key } = this.slot(group);
    const set = map.get(key);
    if (set === undefined || !set.delete(group)) return;
    this.sizeValue--;
    if (set.size === 0) map.delete(key);
  }

  clear(): void {
    this.byKey.clear();
    this.byPrefix.clear();
    this.others.clear();
    this.sizeValue = 0;
  }

  /**
   * Calls `visit` for each group whose key or prefix covers `key`: those watching the key, then
   * those watching each prefix of it that ends at a `/`, from the resource's prefix down.
   */
  forCandidates(key: string, visit: (group: Group) => void): void {
    const exact = this.byKey.get(key);
    if (exact !== undefined) for (const group of exact) visit(group);
    for (const groups of this.others.values()) for (const group of groups) visit(group);
    if (this.byPrefix.size === 0) return;
    let end = this.root.length;
    while (end > 0) {
      const groups = this.byPrefix.get(key.slice(0, end));
      if (groups !== undefined) for (const group of groups) visit(group);
      const slash = key.indexOf("/", end);
      end = slash < 0 ? 0 : slash + 1;
    }
  }

  private slot(group: Group): { readonly map: Map<string, Set<Group>>; readonly key: string } {
    const filter = group.filter;
    if (filter.key !== undefined) return { map: this.byKey, key: filter.key };
    const indexed = filter.prefix.startsWith(this.root) && filter.prefix.endsWith("/");
    return { map: indexed ? this.byPrefix : this.others, key: filter.prefix };
  }
}
