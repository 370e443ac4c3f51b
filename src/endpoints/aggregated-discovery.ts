import { createHash } from "node:crypto";
import type { Registry } from "../registry/index.js";
import { gzipBody } from "../util/gzip.js";
import type { AggregatedVersion } from "./aggregation/aggregated-apis.js";
import { servedGroups, type Aggregation } from "./aggregation/served-groups.js";
import { aggregatedDiscoveryGroup } from "./discovery.js";

/** Which half of aggregated discovery: `/api` (the core group) or `/apis` (every named group). */
export type DiscoveryScope = "core" | "groups";

/**
 * One aggregated discovery document as served: its bytes, its strong ETag (quoted), and its gzip,
 * made at most once per document (on the thread pool) and shared by every request for it.
 */
export interface DiscoveryDocument {
  readonly body: Uint8Array;
  readonly etag: string;
  gzipped(): Promise<Uint8Array>;
}

/**
 * Aggregated discovery (`APIGroupDiscoveryList`) kept ready for requests. `document` returns the
 * current document of a scope in one spelling of its apiVersion: after a change of the served
 * resources it is built at most once (by the first request, or off the request path by the
 * settle timer, whichever comes first), then shared until the next change. The changed groups'
 * entries are serialized by the settle timer in every case.
 */
export interface AggregatedDiscovery {
  document(scope: DiscoveryScope, apiVersion: string): DiscoveryDocument;
  /** Documents built so far, on requests and off them (for tests). */
  readonly builds: number;
}

export interface AggregatedDiscoveryOptions {
  /** Quiet time after the last change before documents asked for since their last build are rebuilt off the request path. Default 20 ms. */
  readonly settleMs?: number;
  /** The longest a rebuild waits under a steady stream of changes (a bulk install of definitions). Default 1,000 ms. */
  readonly maxWaitMs?: number;
  /** Aggregated groups (APIServices with a service) listed among the server's own; their entries change with their APIServices and servers. */
  readonly aggregation?: Aggregation;
}

/** One group's entry, serialized once per change of its group (2,000 groups: 2,000 of these, ~1 KB each). */
interface GroupChunk {
  readonly json: Buffer;
  readonly digest: Buffer;
}

interface Kept {
  document: DiscoveryDocument | undefined;
  /** Asked for since it was built: rebuilt ahead of requests after the next change (and its gzip too when that was asked for). */
  asked: boolean;
  gzipAsked: boolean;
}

const COMMA = Buffer.from(",");
const TAIL = Buffer.from("]}");

function keptDocument(body: Buffer, etag: string, onGzip: () => void): DiscoveryDocument {
  let gzip: Promise<Uint8Array> | undefined;
  return {
    body,
    etag,
    gzipped() {
      onGzip();
      gzip ??= gzipBody(body);
      return gzip;
    },
  };
}

/**
 * Keeps aggregated discovery incrementally: a change (a custom resource definition served or
 * gone) drops only its groups' serialized entries; a document is the concatenation of the kept
 * entries' bytes. The ETag is a digest over the document's head and its entries' digests (each
 * taken once, when its entry is serialized): identical content gives the same ETag, and a change
 * of the content changes it, as kube's hash of the whole body does, without hashing megabytes on a
 * request.
 */
export function createAggregatedDiscovery(registry: Registry, options: AggregatedDiscoveryOptions = {}): AggregatedDiscovery {
  const settleMs = options.settleMs ?? 20;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  const chunks = new Map<string, GroupChunk>();
  const kept = new Map<string, Kept>();
  /** Groups changed since the last settle, their entries not serialized yet. */
  const unserialized = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstChangeAt: number | undefined;
  let builds = 0;

  const aggregation = options.aggregation;
  /** Groups whose entries hold aggregated versions: dropped whenever an APIService or an aggregated server's discovery changes. */
  const aggregatedNames = new Set<string>();
  const chunkOf = (name: string, versions: readonly string[], aggregated: readonly AggregatedVersion[] = []): GroupChunk => {
    let chunk = chunks.get(name);
    if (chunk === undefined) {
      if (aggregated.length > 0) aggregatedNames.add(name);
      const json = Buffer.from(JSON.stringify(aggregatedDiscoveryGroup(registry, name, versions, { aggregated, aggregation })));
      chunk = { json, digest: createHash("sha256").update(json).digest() };
      chunks.set(name, chunk);
    }
    return chunk;
  };

  const build = (key: string, scope: DiscoveryScope, apiVersion: string, entry: Kept): DiscoveryDocument => {
    builds += 1;
    const head = Buffer.from(`{"kind":"APIGroupDiscoveryList","apiVersion":${JSON.stringify(apiVersion)},"metadata":{},"items":[`);
    const parts: Buffer[] = [head];
    const hash = createHash("sha256").update(head);
    for (const group of servedGroups(registry, aggregation)) {
      const name = group.name;
      if (scope === "core" ? name !== "" : name === "") continue;
      const chunk = chunkOf(name, group.local, group.aggregated);
      if (parts.length > 1) parts.push(COMMA);
      parts.push(chunk.json);
      hash.update(chunk.digest);
    }
    parts.push(TAIL);
    const etag = `"${hash.digest("hex").slice(0, 32).toUpperCase()}"`;
    const document = keptDocument(Buffer.concat(parts), etag, () => {
      const current = kept.get(key);
      if (current !== undefined) current.gzipAsked = true;
    });
    entry.document = document;
    return document;
  };

  const rebuild = (): void => {
    timer = undefined;
    firstChangeAt = undefined;
    try {
      rebuildNow();
    } catch {
      // Off the request path an error has nobody to answer: what is left unbuilt is built by the
      // next request, which answers the error as a 500.
    }
  };

  const rebuildNow = (): void => {
    // Changed groups' entries are serialized here, whether or not a document was asked for: the
    // first request after a bulk install then joins kept bytes instead of serializing thousands.
    if (unserialized.size > 0) {
      for (const group of servedGroups(registry, aggregation)) if (unserialized.has(group.name)) chunkOf(group.name, group.local, group.aggregated);
      unserialized.clear();
    }
    for (const [key, entry] of kept) {
      if (entry.document !== undefined) continue;
      if (!entry.asked) {
        // Not asked for since its last build: built again on the next request only.
        kept.delete(key);
        continue;
      }
      const [scope, apiVersion] = key.split("\n") as [DiscoveryScope, string];
      const gzipWanted = entry.gzipAsked;
      entry.asked = false;
      const document = build(key, scope, apiVersion, entry);
      // Compressed ahead on the thread pool; a failure surfaces on the request that awaits it.
      if (gzipWanted) document.gzipped().catch(() => undefined);
      entry.gzipAsked = false;
    }
  };

  const onChanged = (names: Iterable<string>): void => {
    for (const name of names) {
      chunks.delete(name);
      unserialized.add(name);
    }
    for (const entry of kept.values()) entry.document = undefined;
    const now = Date.now();
    firstChangeAt ??= now;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(rebuild, Math.max(0, Math.min(settleMs, firstChangeAt + maxWaitMs - now)));
    // A pending rebuild never keeps the process alive.
    timer.unref();
  };
  registry.onChange((changed) => onChanged([...changed].map((groupVersion) => groupVersion.slice(0, groupVersion.lastIndexOf("/")))));
  const aggregatedChanged = (): void => {
    const names = new Set(aggregatedNames);
    aggregatedNames.clear();
    for (const group of aggregation?.apis.groups() ?? []) names.add(group.name);
    onChanged(names);
  };
  aggregation?.apis.onChange(aggregatedChanged);
  aggregation?.backends.onChange(aggregatedChanged);

  return {
    get builds() {
      return builds;
    },
    document(scope, apiVersion) {
      // Keyed by the apiVersion's spelling too: a client asking in another profile's spelling is answered in it.
      const key = `${scope}\n${apiVersion}`;
      let entry = kept.get(key);
      if (entry === undefined) {
        entry = { document: undefined, asked: false, gzipAsked: false };
        kept.set(key, entry);
      }
      entry.asked = true;
      return entry.document ?? build(key, scope, apiVersion, entry);
    },
  };
}
