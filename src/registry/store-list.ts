import { ApiError, timeout } from "../api/errors.js";
import { isStorageError } from "../storage/index.js";
import type { Storage } from "../storage/interface.js";
import type { CachedObject } from "./cacher/cached-object.js";
import { listItem, listItemOf, type ListItem } from "./list-item.js";
import { filterMatches, type WatchFilter } from "./cacher/cache-watcher.js";
import type { Cacher } from "./cacher/cacher.js";
import type { WatchCache } from "./cacher/watch-cache.js";
import { encodeContinue } from "./list-options.js";
import type { ContinueToken, ListOptions } from "./list-options.js";
import type { ApiObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";

export interface ListResponse {
  readonly items: readonly ListItem[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

/** What a list reads, resolved from the request's resourceVersion semantics. */
export type ListSource =
  | { readonly kind: "storage"; readonly revision: number; readonly startAfter?: string; readonly fromContinue: boolean }
  | { readonly kind: "cache" };

function page(options: ListOptions, prefix: string, items: ListItem[], revision: number, remaining: number, lastKey: string | undefined): ListResponse {
  const filtered = options.labelSelector.length > 0 || options.fieldSelector.length > 0;
  const more = options.limit > 0 && remaining > 0 && lastKey !== undefined;
  return {
    items,
    resourceVersion: String(revision),
    continueToken: more && lastKey !== undefined ? encodeContinue({ revision, startAfter: lastKey.slice(prefix.length) }) : undefined,
    remainingItemCount: more && !filtered ? remaining : undefined,
  };
}

const EXPIRED_CONTINUE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

export interface StorageListInput {
  readonly storage: Storage;
  readonly prefix: string;
  readonly source: Extract<ListSource, { kind: "storage" }>;
  readonly options: ListOptions;
  /** A page of entries as the served version (converted in one batch). */
  readonly decode: (entries: readonly KeyValue[]) => Promise<ApiObject[]>;
  readonly matches: (object: ApiObject) => boolean;
  readonly translate: (error: unknown) => ApiError;
}

/** A list read from storage at a revision (0 = latest): exact reads and continued pages. */
export async function listFromStorage(input: StorageListInput): Promise<ListResponse> {
  const { options, prefix } = input;
  const filtered = options.labelSelector.length > 0 || options.fieldSelector.length > 0;
  const items: ListItem[] = [];
  let revision = input.source.revision;
  let cursor = input.source.startAfter;
  let remaining = 0;
  let lastKey: string | undefined;
  try {
    // Selectors filter after reading, so keep reading pages until `limit` matches or the end.
    for (;;) {
      const want = options.limit > 0 ? options.limit - items.length : 0;
      const result = await input.storage.list(prefix, { revision, limit: want, startAfter: cursor });
      revision = result.revision;
      const objects = await input.decode(result.items);
      for (const object of objects) {
        if (filtered && !input.matches(object)) continue;
        items.push(listItemOf(object));
      }
      lastKey = result.items.at(-1)?.key ?? lastKey;
      remaining = result.remaining;
      if (options.limit === 0 || result.remaining === 0 || items.length >= options.limit) break;
      cursor = lastKey;
    }
  } catch (error) {
    if (isStorageError(error, "Compacted") && input.source.fromContinue) {
      // kube hands back a token to go on from the latest version, knowingly inconsistent.
      const startAfter = (input.source.startAfter ?? prefix).slice(prefix.length);
      const inconsistent = encodeContinue({ revision: input.storage.currentRevision(), startAfter });
      throw new ApiError(410, "Expired", EXPIRED_CONTINUE, { listMeta: { continue: inconsistent } });
    }
    throw input.translate(error);
  }
  return page(options, prefix, items, revision, remaining, lastKey);
}

export interface CacheListInput {
  readonly cacher: Cacher;
  readonly cache: WatchCache;
  readonly prefix: string;
  readonly options: ListOptions;
  /** The revision the cache must reach first; undefined = any (rv "0"). */
  readonly atLeast: number | "current" | undefined;
  readonly waitMs: number;
  /** Converts cached (storage-version) JSON for versions served from another's storage. */
  readonly convert?: (json: string) => string;
  /**
   * Serves a consistent read (`atLeast: "current"`) whose cache did not catch up within `waitMs`:
   * kube (1.31+) then reads the list from storage instead of failing it. Without it, such a list is
   * 504 like a too-new resourceVersion (which always is: the store cannot serve the future either).
   */
  readonly stale?: () => Promise<ListResponse>;
}

/** A list served from the watch cache once it is at least as new as the request needs. */
export async function listFromCache(input: CacheListInput): Promise<ListResponse> {
  const { cacher, options } = input;
  if (input.atLeast !== undefined) {
    const target = input.atLeast;
    const reached = target === "current" ? await cacher.waitForCurrent(input.waitMs) : await cacher.waitFor(target, input.waitMs);
    if (!reached && target === "current" && input.stale !== undefined) return input.stale();
    if (!reached) throw timeout(`Too large resource version: ${String(target)}, current: ${cacher.revision}`, 1);
  }
  // Read the revision and the objects in one synchronous step: they describe the same state, and
  // a paged list keeps a snapshot of it for its continue tokens.
  const revision = cacher.revision;
  const result = input.cache.list(input.prefix, { limit: options.limit, matches: cacheMatcher(input.prefix, options), keepAt: revision });
  return page(options, input.prefix, cacheItems(result.items, input.convert), revision, result.remaining, result.lastKey);
}

export interface CacheContinueInput {
  readonly cacher: Cacher;
  readonly cache: WatchCache;
  readonly prefix: string;
  readonly options: ListOptions;
  readonly token: ContinueToken;
  readonly convert?: (json: string) => string;
}

/**
 * A continued page served from the snapshot the cache kept at the token's revision, resuming by
 * key in O(log n); undefined when no snapshot is kept for it (the caller reads storage at that
 * revision, which answers 410 once compacted). A snapshot older than the store's compaction point
 * is dropped first: its tokens expire exactly as storage's do.
 */
export function continueFromCache(input: CacheContinueInput): ListResponse | undefined {
  const { cache, token, options, prefix } = input;
  const compacted = input.cacher.compactedRevision();
  if (token.revision < compacted) {
    cache.dropSnapshotsBelow(compacted);
    return undefined;
  }
  const result = cache.listContinued(token.revision, prefix, {
    startAfter: `${prefix}${token.startAfter}`,
    limit: options.limit,
    matches: cacheMatcher(prefix, options),
  });
  if (result === undefined) return undefined;
  return page(options, prefix, cacheItems(result.items, input.convert), token.revision, result.remaining, result.lastKey);
}

function cacheMatcher(prefix: string, options: ListOptions): ((object: CachedObject) => boolean) | undefined {
  if (options.labelSelector.length === 0 && options.fieldSelector.length === 0) return undefined;
  const filter: WatchFilter = { prefix, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  return (object) => filterMatches(filter, object);
}

function cacheItems(objects: readonly CachedObject[], convert: ((json: string) => string) | undefined): ListItem[] {
  return objects.map((object) => (convert === undefined ? listItem(object.json, object) : listItem(convert(object.json))));
}
