import type { FieldType } from "../api/schema/field-type.js";
import { FieldSet } from "./field-set.js";
import type { Path } from "./path.js";
import { merge, removeItems } from "./merge.js";
import { compare, ensureNamedFieldsAreMembers, toFieldSet, type Comparison, type WalkOptions } from "./typed.js";

/** The fields one manager owns, with the API version it wrote them in and whether it applied them. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** True for an `Apply` entry, false for `Update`. */
  readonly applied: boolean;
}

/** Manager identifier → what it owns. */
export type ManagedSets = ReadonlyMap<string, VersionedSet>;

/** One field another manager owns that a write would change. */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** Thrown by `apply` without force when other managers own fields it would change. */
export class ConflictError extends Error {
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
    this.name = "ConflictError";
    this.conflicts = conflicts;
  }
}

/**
 * Which fields a write may own: `ignore` removes paths (and everything below them) from every
 * comparison and every set the write records — kube's reset fields, e.g. `status` on the main
 * resource; `only` keeps nothing but the given top-level fields (a status sub-resource write).
 */
export type FieldFilter = (set: FieldSet) => FieldSet;

export const NO_FILTER: FieldFilter = (set) => set;

const UNTYPED: WalkOptions = { allowDuplicates: true };
const TYPED: WalkOptions = { allowDuplicates: true, typed: true };

export interface UpdaterOptions {
  readonly type: FieldType;
  readonly filter?: FieldFilter;
}

/**
 * Structured merge with field ownership (kube's structured-merge-diff `Updater`):
 * `update` records what a non-apply write changed, `apply` merges a configuration and prunes
 * what the applier stopped applying. Pure: inputs are not mutated.
 */
export class Updater {
  private readonly type: FieldType;
  private readonly filter: FieldFilter;

  constructor(options: UpdaterOptions) {
    this.type = options.type;
    this.filter = options.filter ?? NO_FILTER;
  }

  private filtered(comparison: Comparison): Comparison {
    return { added: this.filter(comparison.added), modified: this.filter(comparison.modified), removed: this.filter(comparison.removed) };
  }

  /**
   * Takes fields other managers lose: what `workflow` changes (with force) and what it removes.
   * Without force, any changed field another manager owns is a conflict.
   */
  private settle(
    live: unknown,
    next: unknown,
    managers: ManagedSets,
    workflow: string,
    force: boolean,
    typed = false,
  ): { managers: Map<string, VersionedSet>; comparison: Comparison } {
    const comparison = this.filtered(compare(live, next, this.type, typed ? TYPED : UNTYPED));
    const changed = comparison.modified.union(comparison.added);
    const conflicts: Conflict[] = [];
    const result = new Map<string, VersionedSet>();
    for (const [manager, owned] of managers) {
      if (manager === workflow) {
        result.set(manager, owned);
        continue;
      }
      const conflicting = owned.set.intersection(changed);
      if (!conflicting.isEmpty()) for (const path of conflicting.leaves().paths()) conflicts.push({ manager, path });
      const set = owned.set.difference(conflicting).difference(comparison.removed);
      if (!set.isEmpty()) result.set(manager, { ...owned, set });
    }
    if (!force && conflicts.length > 0) throw new ConflictError(conflicts);
    return { managers: result, comparison };
  }

  /**
   * A non-apply write: `manager` takes what it changed and never conflicts. `typed`: both values
   * carry their Go zeros (`withGoZeros`), as kube's typed objects do.
   */
  update(live: unknown, next: unknown, apiVersion: string, managers: ManagedSets, manager: string, typed = false): Map<string, VersionedSet> {
    const { managers: result, comparison } = this.settle(live, next, managers, manager, true, typed);
    const previous = result.get(manager)?.set ?? FieldSet.EMPTY;
    const set = this.filter(previous.union(comparison.modified).union(comparison.added).difference(comparison.removed));
    if (set.isEmpty()) result.delete(manager);
    else result.set(manager, { set, apiVersion, applied: false });
    return result;
  }

  /**
   * An apply: merges `config` into `live`, makes the config's fields `manager`'s, removes what it
   * applied last time and no longer does (unless someone else owns it), and checks conflicts.
   * `config` must already be valid (no duplicate keys); `configSet` is its field set when the
   * caller has it. Returns the new object and owners.
   */
  apply(
    live: unknown,
    config: unknown,
    apiVersion: string,
    managers: ManagedSets,
    manager: string,
    force: boolean,
    configSet?: FieldSet,
  ): { object: unknown; managers: Map<string, VersionedSet> } {
    const merged = merge(live, config, this.type);
    const lastSet = managers.get(manager)?.set;
    const applied = this.filter(configSet ?? toFieldSet(config, this.type));
    const withApplier = new Map(managers);
    withApplier.set(manager, { set: applied, apiVersion, applied: true });
    // Only what the applier owned last time and no longer applies can be pruned.
    const nothingDropped = lastSet === undefined || lastSet.difference(applied).isEmpty();
    const pruned = nothingDropped ? merged : this.prune(merged, withApplier, lastSet);
    const { managers: result } = this.settle(live, pruned, withApplier, manager, force);
    if (applied.isEmpty()) result.delete(manager);
    return { object: pruned, managers: result };
  }

  /** Removes what the applier owned last time and no longer applies, unless another manager owns it. */
  private prune(merged: unknown, managers: ManagedSets, lastSet: FieldSet): unknown {
    const named = (set: FieldSet): FieldSet => ensureNamedFieldsAreMembers(set, this.type);
    const mergedSet = named(toFieldSet(merged, this.type, { allowDuplicates: true }));
    const last = named(lastSet);
    let pruned = removeItems(merged, this.type, last);
    // Add back what any manager (the applier's new configuration included) owns.
    let owned = FieldSet.EMPTY;
    for (const entry of managers.values()) owned = owned.union(entry.set);
    let prunedSet = named(toFieldSet(pruned, this.type, { allowDuplicates: true }));
    pruned = removeItems(merged, this.type, mergedSet.difference(prunedSet.union(named(owned))));
    // Of what is gone, keep only removals of fields the applier owned: nobody's fields and
    // updaters' fields it never owned stay.
    prunedSet = named(toFieldSet(pruned, this.type, { allowDuplicates: true }));
    return removeItems(merged, this.type, mergedSet.difference(prunedSet).intersection(last));
  }
}
