import { randomInt } from "node:crypto";
import { isStorageError, type Storage } from "../../storage/index.js";

/** Who holds an allocated value: the owning object's uid (allocation is idempotent per owner) and a name for people. */
export interface AllocationOwner {
  readonly uid: string;
  readonly name: string;
}

/** The answer to a request for one value. */
export type Claim =
  | { readonly kind: "ok" /** The claim made the value the owner's now (it was free). */; readonly fresh?: boolean }
  | { readonly kind: "taken" }
  | { readonly kind: "outside" };

/**
 * A range of values (addresses, ports) allocated durably through the storage seam: each
 * allocated value is one key under `prefix` (`/ranges/serviceips/10.0.0.7`) whose value names
 * its owner. Creating the key is the allocation, so two writers can never both get a value
 * (storage's create fails for the second), and a restart finds every allocation where it was.
 * Values are spelled by `valueAt(index)`; `reserved` indexes (a network address) are never
 * handed out. The Cacher ignores these keys: no resource's prefix covers them.
 */
export class KeyRangeAllocator {
  /** Values this process is trying right now, so concurrent requests do not all try the same one. */
  private readonly trying = new Set<number>();

  constructor(
    private readonly storage: Storage,
    private readonly options: {
      readonly prefix: string;
      readonly size: number;
      readonly valueAt: (index: number) => string;
      readonly indexOf: (value: string) => number | undefined;
      readonly reserved?: (index: number) => boolean;
      /**
       * The first index of the dynamic band: values below it (the static band, kube's
       * ServiceIPStaticSubrange and ServiceNodePortStaticSubrange) are handed out by claimAny
       * only once every value above is taken, so addresses and ports users pick (a DNS
       * service's 10.0.0.10) stay free for them. Default 0: no static band.
       */
      readonly dynamicFrom?: number;
    },
  ) {}

  /** The range's values: `10.0.0.0/24`, `30000-32767`. */
  private key(index: number): string {
    return `${this.options.prefix}${this.options.valueAt(index)}`;
  }

  /** Whether `value` could be claimed by `owner` now (for dry runs): free, or already the owner's. */
  async check(value: string, owner: AllocationOwner): Promise<Claim> {
    const index = this.usableIndex(value);
    if (index === undefined) return { kind: "outside" };
    const holder = await this.holderOf(index);
    return holder === undefined || holder === owner.uid ? { kind: "ok" } : { kind: "taken" };
  }

  /** Claims one given value for `owner`; claiming a value the owner already holds succeeds. */
  async claim(value: string, owner: AllocationOwner): Promise<Claim> {
    const index = this.usableIndex(value);
    if (index === undefined) return { kind: "outside" };
    const claimed = await this.claimIndex(index, owner);
    return claimed === false ? { kind: "taken" } : { kind: "ok", fresh: claimed === "fresh" };
  }

  /** Claims a free value for `owner`, from the dynamic band first; undefined when the range is full. */
  async claimAny(owner: AllocationOwner): Promise<string | undefined> {
    const from = Math.min(Math.max(0, this.options.dynamicFrom ?? 0), this.options.size);
    for (let attempt = 0; attempt < 8; attempt++) {
      const taken = await this.allocatedIndexes();
      const index = this.freeIndex(from, this.options.size, taken) ?? this.freeIndex(0, from, taken);
      if (index === undefined) return undefined;
      if ((await this.claimIndex(index, owner)) !== false) return this.options.valueAt(index);
    }
    return undefined;
  }

  /** A free index in [start, end): random probes first (cheap in big ranges), then a scan so a nearly full band still finds its last values. */
  private freeIndex(start: number, end: number, taken: ReadonlySet<number>): number | undefined {
    if (end <= start) return undefined;
    for (let probe = 0; probe < 32; probe++) {
      const index = start + randomInt(end - start);
      if (this.isFree(index, taken)) return index;
    }
    const free: number[] = [];
    for (let index = start; index < end; index++) if (this.isFree(index, taken)) free.push(index);
    return free.length === 0 ? undefined : free[randomInt(free.length)];
  }

  /** Gives a value back, if `owner` holds it (a stale release never frees someone else's value). */
  async release(value: string, owner: AllocationOwner): Promise<void> {
    const index = this.options.indexOf(value);
    if (index === undefined) return;
    try {
      const current = await this.storage.get(this.key(index));
      if (ownerUid(current.value) !== owner.uid) return;
      await this.storage.delete(this.key(index), { expectedRevision: current.modRevision });
    } catch (error) {
      if (isStorageError(error, "KeyNotFound") || isStorageError(error, "PreconditionFailed")) return;
      throw error;
    }
  }

  /** Every allocation with its owner's uid (for repair after a crash between allocation and write). */
  async allocations(): Promise<{ value: string; uid: string | undefined }[]> {
    const listed = await this.storage.list(this.options.prefix);
    return listed.items.map((item) => ({ value: item.key.slice(this.options.prefix.length), uid: ownerUid(item.value) }));
  }

  /** The storage key of a value, undefined when the value is not in this range. */
  keyOf(value: string): string | undefined {
    const index = this.usableIndex(value);
    return index === undefined ? undefined : this.key(index);
  }

  private usableIndex(value: string): number | undefined {
    const index = this.options.indexOf(value);
    return index === undefined || this.options.reserved?.(index) === true ? undefined : index;
  }

  private isFree(index: number, taken: ReadonlySet<number>): boolean {
    return !taken.has(index) && !this.trying.has(index) && this.options.reserved?.(index) !== true;
  }

  private async allocatedIndexes(): Promise<Set<number>> {
    const indexes = new Set<number>();
    for (const { value } of await this.allocations()) {
      const index = this.options.indexOf(value);
      if (index !== undefined) indexes.add(index);
    }
    return indexes;
  }

  private async holderOf(index: number): Promise<string | undefined> {
    try {
      return ownerUid((await this.storage.get(this.key(index))).value) ?? "";
    } catch (error) {
      if (isStorageError(error, "KeyNotFound")) return undefined;
      throw error;
    }
  }

  /** "fresh" when this call claimed the value, "held" when the owner already had it, false when another has it. */
  private async claimIndex(index: number, owner: AllocationOwner): Promise<"fresh" | "held" | false> {
    this.trying.add(index);
    try {
      await this.storage.create(this.key(index), JSON.stringify({ uid: owner.uid, owner: owner.name }));
      return "fresh";
    } catch (error) {
      if (!isStorageError(error, "KeyExists")) throw error;
      return (await this.holderOf(index)) === owner.uid ? "held" : false;
    } finally {
      this.trying.delete(index);
    }
  }
}

function ownerUid(value: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === "object" && parsed !== null && "uid" in parsed && typeof parsed.uid === "string") return parsed.uid;
  } catch {
    // Not ours to read: treated as held by nobody known.
  }
  return undefined;
}
