/**
 * In-memory Storage with full MVCC history (until compacted). Used by tests and by
 * `--storage=memory`; nothing survives the process.
 */
import { StorageError } from "../errors.js";
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  ReadOptions,
  Storage,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchEvent,
} from "../interface.js";
import { closedError, compareKeys, keySuccessor, normaliseLimit, resolveReadRevision, updateTarget } from "../util.js";
import { WatchHub } from "../watch-hub.js";

/** One version of a key; `value === undefined` is a tombstone (the key was deleted at `revision`). */
interface Version {
  readonly revision: number;
  readonly createRevision: number;
  readonly value: string | undefined;
}

export class MemoryStorage implements Storage {
  private revision = 0;
  private compacted = 0;
  private closed = false;
  /** Versions per key in ascending revision order. */
  private readonly history = new Map<string, Version[]>();
  /** Every key of `history`, sorted by compareKeys. */
  private keys: string[] = [];
  /** All events with revision > compacted, ascending (the watch replay source). */
  private log: WatchEvent[] = [];
  private readonly hub: WatchHub;

  constructor() {
    this.hub = new WatchHub({
      currentRevision: () => this.revision,
      compactedRevision: () => this.compacted,
      readEvents: (prefix, after, upTo, limit) => this.readEvents(prefix, after, upTo, limit),
    });
  }

  async create(key: string, value: string): Promise<number> {
    this.assertOpen(key);
    if (this.liveVersion(key) !== undefined) throw new StorageError("KeyExists", key);
    return this.commit(key, value, undefined);
  }

  async get(key: string, options: ReadOptions = {}): Promise<KeyValue> {
    this.assertOpen(key);
    const revision = resolveReadRevision(key, options.revision, this.revision, this.compacted);
    const version = this.versionAt(key, revision);
    if (version?.value === undefined) throw new StorageError("KeyNotFound", key);
    return toKeyValue(key, version, version.value);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen(prefix);
    const revision = resolveReadRevision(prefix, options.revision, this.revision, this.compacted);
    const limit = normaliseLimit(options.limit);
    let from = prefix;
    if (options.startAfter !== undefined && compareKeys(keySuccessor(options.startAfter), from) > 0) {
      from = keySuccessor(options.startAfter);
    }
    const items: KeyValue[] = [];
    let remaining = 0;
    for (let i = this.lowerBound(from); i < this.keys.length; i++) {
      const key = this.keys[i] as string;
      if (!key.startsWith(prefix)) break;
      const version = this.versionAt(key, revision);
      if (version?.value === undefined) continue;
      if (limit === 0 || items.length < limit) items.push(toKeyValue(key, version, version.value));
      else remaining++;
    }
    return { items, revision, remaining };
  }

  async guaranteedUpdate(key: string, tryUpdate: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    for (;;) {
      this.assertOpen(key);
      const current = this.liveVersion(key);
      if (current === undefined && options.ignoreNotFound !== true) throw new StorageError("KeyNotFound", key);
      const currentValue = current === undefined ? undefined : toKeyValue(key, current, current.value as string);
      const target = updateTarget(await tryUpdate(currentValue));
      this.assertOpen(key);
      // Compare-and-swap: versions are immutable objects, so identity means "unchanged".
      if (this.liveVersion(key) !== current) continue;
      if (target === null) {
        if (current === undefined) return { value: undefined, revision: this.revision, created: false };
        return { value: undefined, revision: this.commit(key, undefined, current), created: false };
      }
      if (currentValue !== undefined && currentValue.value === target) {
        return { value: currentValue, revision: currentValue.modRevision, created: false };
      }
      const revision = this.commit(key, target, current);
      const createRevision = current?.createRevision ?? revision;
      return { value: { key, value: target, modRevision: revision, createRevision }, revision, created: current === undefined };
    }
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    this.assertOpen(key);
    const current = this.liveVersion(key);
    if (current === undefined) throw new StorageError("KeyNotFound", key);
    if (options.expectedRevision !== undefined && options.expectedRevision !== current.revision) {
      throw new StorageError("PreconditionFailed", key, {
        revision: current.revision,
        message: `expected revision ${options.expectedRevision}, found ${current.revision}: ${key}`,
      });
    }
    const previous = toKeyValue(key, current, current.value as string);
    return { previous, revision: this.commit(key, undefined, current) };
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent> {
    return this.hub.watch(prefix, fromRevision, signal);
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen(prefix);
    let count = 0;
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const key = this.keys[i] as string;
      if (!key.startsWith(prefix)) break;
      if (this.liveVersion(key) !== undefined) count++;
    }
    return count;
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen("");
    if (!Number.isSafeInteger(revision) || revision < 0) throw new TypeError(`invalid compact revision ${String(revision)}`);
    if (revision > this.revision) {
      throw new StorageError("FutureRevision", "", { revision: this.revision, message: `cannot compact to future revision ${revision}` });
    }
    if (revision <= this.compacted) return;
    let removedKeys = false;
    for (const [key, versions] of this.history) {
      const index = lastIndexAtOrBefore(versions, revision);
      if (index < 0) continue;
      // Keep the version visible at `revision` unless it is a tombstone.
      const drop = versions[index]?.value === undefined ? index + 1 : index;
      if (drop > 0) versions.splice(0, drop);
      if (versions.length === 0) {
        this.history.delete(key);
        removedKeys = true;
      }
    }
    if (removedKeys) this.keys = this.keys.filter((key) => this.history.has(key));
    this.log = this.log.slice(this.logIndexAfter(revision));
    this.compacted = revision;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.close();
  }

  /** Appends a version at the next revision and publishes its event. `previous` is the live version it replaces. */
  private commit(key: string, value: string | undefined, previous: Version | undefined): number {
    const revision = ++this.revision;
    let versions = this.history.get(key);
    if (versions === undefined) {
      versions = [];
      this.history.set(key, versions);
      this.keys.splice(this.lowerBound(key), 0, key);
    }
    versions.push({ revision, createRevision: previous?.createRevision ?? revision, value });
    const event: WatchEvent = {
      type: value === undefined ? "DELETED" : previous === undefined ? "ADDED" : "MODIFIED",
      key,
      revision,
      value,
      previous: previous?.value,
    };
    this.log.push(event);
    this.hub.publish([event]);
    return revision;
  }

  private liveVersion(key: string): Version | undefined {
    const versions = this.history.get(key);
    const last = versions?.[versions.length - 1];
    return last?.value === undefined ? undefined : last;
  }

  private versionAt(key: string, revision: number): Version | undefined {
    const versions = this.history.get(key);
    if (versions === undefined) return undefined;
    return versions[lastIndexAtOrBefore(versions, revision)];
  }

  /** Index of the first key >= key in `keys`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid] as string, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first log event with revision > after. */
  private logIndexAfter(after: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.log[mid] as WatchEvent).revision <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private readEvents(prefix: string, after: number, upTo: number, limit: number): WatchEvent[] {
    const events: WatchEvent[] = [];
    for (let i = this.logIndexAfter(after); i < this.log.length && events.length < limit; i++) {
      const event = this.log[i] as WatchEvent;
      if (event.revision > upTo) break;
      if (event.key.startsWith(prefix)) events.push(event);
    }
    return events;
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}

function toKeyValue(key: string, version: Version, value: string): KeyValue {
  return { key, value, modRevision: version.revision, createRevision: version.createRevision };
}

/** Index of the last version with revision <= revision, or -1. */
function lastIndexAtOrBefore(versions: readonly Version[], revision: number): number {
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((versions[mid] as Version).revision <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
