/**
 * Reads a V8 .heapsnapshot (node --heapsnapshot-signal) and answers "what does the watch cache
 * hold per object": the live heap by node type and by constructor, the cached objects (objects
 * with `key` and `json` properties) broken down by field, and the containers of the
 * cache (the properties of every `WatchCache`). A snapshot is taken after a full GC, so the
 * sizes are live memory, unlike RSS.
 */
import { readFileSync } from "node:fs";
import { round } from "./stats.js";

interface SnapshotMeta {
  readonly node_fields: readonly string[];
  readonly node_types: readonly [readonly string[], ...unknown[]];
  readonly edge_fields: readonly string[];
  readonly edge_types: readonly [readonly string[], ...unknown[]];
}

interface SnapshotHead {
  readonly snapshot: { readonly meta: SnapshotMeta; readonly node_count: number; readonly edge_count: number };
}

interface LoadedSnapshot {
  readonly meta: SnapshotMeta;
  readonly nodes: Uint32Array;
  readonly edges: Uint32Array;
  /** strings[index], decoded on first use. */
  readonly string: (index: number) => string;
  readonly bytes: number;
}

const COMMA = 44;
const CLOSE_BRACKET = 93;
const QUOTE = 34;
const BACKSLASH = 92;

/** The unsigned integers of a JSON array starting after `[` at `from`, into `into`; returns the index after `]`. */
function parseIntegers(buffer: Buffer, from: number, into: Uint32Array): number {
  let count = 0;
  let value = 0;
  let inNumber = false;
  for (let index = from; index < buffer.length; index++) {
    const byte = buffer[index] ?? CLOSE_BRACKET;
    if (byte >= 48 && byte <= 57) {
      value = value * 10 + (byte - 48);
      inNumber = true;
    } else if (byte === COMMA || byte === CLOSE_BRACKET) {
      if (inNumber) {
        if (count >= into.length) throw new Error("heap snapshot: more numbers than the header announced");
        into[count++] = value;
      }
      value = 0;
      inNumber = false;
      if (byte === CLOSE_BRACKET) return index + 1;
    }
  }
  throw new Error("heap snapshot: unterminated array");
}

/**
 * Reads a snapshot without making it one string (V8 strings stop at 512 MiB, and a heap full of
 * leaked objects writes a bigger file): the header is parsed as JSON, the node and edge arrays
 * byte by byte, and the strings are located and decoded on demand.
 */
function loadSnapshot(path: string): LoadedSnapshot {
  const buffer = readFileSync(path);
  const nodesKey = buffer.indexOf('"nodes":');
  if (nodesKey < 0) throw new Error(`${path}: no "nodes" in the heap snapshot`);
  const head = JSON.parse(`${buffer.toString("utf8", 0, nodesKey).replace(/[,\s]*$/, "")}}`) as SnapshotHead;
  const meta = head.snapshot.meta;
  const nodes = new Uint32Array(head.snapshot.node_count * meta.node_fields.length);
  const edges = new Uint32Array(head.snapshot.edge_count * meta.edge_fields.length);
  let at = parseIntegers(buffer, buffer.indexOf("[", nodesKey) + 1, nodes);
  const edgesKey = buffer.indexOf('"edges":', at);
  at = parseIntegers(buffer, buffer.indexOf("[", edgesKey) + 1, edges);
  const stringsKey = buffer.indexOf('"strings":', at);
  const starts: number[] = [];
  const ends: number[] = [];
  for (let index = buffer.indexOf("[", stringsKey) + 1; index < buffer.length; index++) {
    const byte = buffer[index];
    if (byte === CLOSE_BRACKET) break;
    if (byte !== QUOTE) continue;
    const start = index;
    for (index++; index < buffer.length; index++) {
      const inner = buffer[index];
      if (inner === BACKSLASH) index++;
      else if (inner === QUOTE) break;
    }
    starts.push(start);
    ends.push(index + 1);
  }
  const decoded = new Map<number, string>();
  const string = (index: number): string => {
    let value = decoded.get(index);
    if (value === undefined) {
      const start = starts[index];
      const end = ends[index];
      value = start === undefined || end === undefined ? "" : (JSON.parse(buffer.toString("utf8", start, end)) as string);
      decoded.set(index, value);
    }
    return value;
  };
  return { meta, nodes, edges, string, bytes: buffer.length };
}

export interface SizeRow {
  readonly name: string;
  readonly count: number;
  readonly bytes: number;
  readonly MiB: number;
}

export interface FieldRow {
  readonly field: string;
  /** Distinct heap nodes reached through this field (shared ones counted once). */
  readonly distinct: number;
  readonly bytes: number;
  readonly bytesPerObject: number;
}

export interface HeapSummary {
  readonly file: string;
  readonly fileMiB: number;
  readonly nodes: number;
  readonly liveHeapMiB: number;
  /** Live Promise objects (a leak of pending promise chains shows here). */
  readonly promises: number;
  readonly byType: readonly SizeRow[];
  readonly byConstructor: readonly SizeRow[];
  readonly cachedObjects: number;
  /** Per field of a cached object: the value and its own backing stores (not what is shared). */
  readonly cachedObjectFields: readonly FieldRow[];
  readonly cachedObjectBytesPerObject: number;
  /** The WatchCache containers (Map of objects, sorted keys, event window ...): field → bytes. */
  readonly containers: readonly FieldRow[];
  readonly containerBytesPerObject: number;
}

const BACKING_TYPES = new Set(["array", "hidden", "object shape", "code"]);

export function analyseHeapSnapshot(path: string): HeapSummary {
  const file = loadSnapshot(path);
  const fileMiB = round(file.bytes / (1 << 20));
  const meta = file.meta;
  const nodeFieldCount = meta.node_fields.length;
  const edgeFieldCount = meta.edge_fields.length;
  const typeOffset = meta.node_fields.indexOf("type");
  const nameOffset = meta.node_fields.indexOf("name");
  const sizeOffset = meta.node_fields.indexOf("self_size");
  const edgeCountOffset = meta.node_fields.indexOf("edge_count");
  const edgeTypeOffset = meta.edge_fields.indexOf("type");
  const edgeNameOffset = meta.edge_fields.indexOf("name_or_index");
  const edgeToOffset = meta.edge_fields.indexOf("to_node");
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, string } = file;
  const nodeCount = nodes.length / nodeFieldCount;
  const firstEdge = new Uint32Array(nodeCount + 1);
  for (let index = 0, edge = 0; index < nodeCount; index++) {
    firstEdge[index] = edge;
    edge += (nodes[index * nodeFieldCount + edgeCountOffset] ?? 0) * edgeFieldCount;
    firstEdge[index + 1] = edge;
  }
  const typeOf = (node: number): string => nodeTypes[nodes[node * nodeFieldCount + typeOffset] ?? 0] ?? "?";
  const nameOf = (node: number): string => string(nodes[node * nodeFieldCount + nameOffset] ?? 0);
  const sizeOf = (node: number): number => nodes[node * nodeFieldCount + sizeOffset] ?? 0;
  const edgeType = (edge: number): string => edgeTypes[edges[edge + edgeTypeOffset] ?? 0] ?? "?";
  const edgeName = (edge: number): string => {
    const type = edgeType(edge);
    const value = edges[edge + edgeNameOffset] ?? 0;
    return type === "element" || type === "hidden" ? String(value) : string(value);
  };
  const edgeTarget = (edge: number): number => (edges[edge + edgeToOffset] ?? 0) / nodeFieldCount;
  const edgesOf = function* (node: number): Generator<number> {
    for (let edge = firstEdge[node] ?? 0; edge < (firstEdge[node + 1] ?? 0); edge += edgeFieldCount) yield edge;
  };

  let total = 0;
  const byType = new Map<string, { count: number; bytes: number }>();
  const byConstructor = new Map<string, { count: number; bytes: number }>();
  const add = (map: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void => {
    const entry = map.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += bytes;
    map.set(key, entry);
  };
  const cached: number[] = [];
  const caches: number[] = [];
  let promises = 0;
  for (let node = 0; node < nodeCount; node++) {
    const size = sizeOf(node);
    total += size;
    const type = typeOf(node);
    add(byType, type, size);
    add(byConstructor, type === "object" || type === "closure" || type === "native" ? nameOf(node) : `(${type})`, size);
    if (type !== "object") continue;
    const constructorName = nameOf(node);
    if (constructorName === "WatchCache") caches.push(node);
    else if (constructorName === "Promise") promises++;
    // `revision` is a small integer (a Smi, no heap edge), so key + json identify a cached object
    // (a LazyCachedObject holds its JSON as `text`, read through a getter).
    let key = false;
    let json = false;
    for (const edge of edgesOf(node)) {
      if (edgeType(edge) !== "property") continue;
      const name = edgeName(edge);
      if (name === "key") key = true;
      else if (name === "json" || name === "text") json = true;
    }
    if (key && json) cached.push(node);
  }

  /** Self size of `node` plus its backing stores (property arrays, elements, hash tables), once each. */
  const counted = new Set<number>();
  const ownSize = (node: number, depth: number): number => {
    if (counted.has(node)) return 0;
    counted.add(node);
    let size = sizeOf(node);
    const nodeType = typeOf(node);
    if (nodeType === "concatenated string" || nodeType === "sliced string") {
      // A string built in parts (JSON.stringify's builder makes cons strings) is all its parts.
      for (const edge of edgesOf(node)) {
        const target = edgeTarget(edge);
        if (edgeName(edge) !== "map" && typeOf(target).includes("string")) size += ownSize(target, 1);
      }
      return size;
    }
    if (depth <= 0) return size;
    for (const edge of edgesOf(node)) {
      const type = edgeType(edge);
      if (type === "weak" || type === "shortcut") continue;
      const target = edgeTarget(edge);
      const targetType = typeOf(target);
      // Backing stores always; strings and small objects only through the object's own fields.
      if (type === "internal" || BACKING_TYPES.has(targetType)) {
        if (edgeName(edge) === "map" || targetType === "object shape") continue; // hidden classes are shared
        size += ownSize(target, depth - 1);
      } else if (depth > 1 && (type === "property" || type === "element")) {
        if (
          targetType === "string" ||
          targetType === "concatenated string" ||
          targetType === "sliced string" ||
          targetType === "object" ||
          targetType === "number"
        )
          size += ownSize(target, depth - 1);
      }
    }
    return size;
  };

  const fields = new Map<string, { distinct: number; bytes: number }>();
  const addField = (name: string, bytes: number): void => {
    const entry = fields.get(name) ?? { distinct: 0, bytes: 0 };
    if (bytes > 0) entry.distinct++;
    entry.bytes += bytes;
    fields.set(name, entry);
  };
  for (const node of cached) {
    counted.add(node);
    let shell = sizeOf(node);
    for (const edge of edgesOf(node)) {
      const type = edgeType(edge);
      const target = edgeTarget(edge);
      if (type === "property") addField(edgeName(edge), ownSize(target, 2));
      else if (type === "internal" && edgeName(edge) !== "map" && typeOf(target) !== "object shape") shell += ownSize(target, 1);
    }
    addField("(the object itself)", shell);
  }
  const cachedObjects = cached.length;
  const fieldRows = [...fields.entries()]
    .map(([field, entry]) => ({
      field,
      distinct: entry.distinct,
      bytes: entry.bytes,
      bytesPerObject: cachedObjects === 0 ? 0 : round(entry.bytes / cachedObjects),
    }))
    .filter((row) => row.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  const perObject = fieldRows.reduce((sum, row) => sum + row.bytes, 0);

  const containers = new Map<string, { distinct: number; bytes: number }>();
  for (const cache of caches) {
    for (const edge of edgesOf(cache)) {
      if (edgeType(edge) !== "property") continue;
      const name = edgeName(edge);
      const target = edgeTarget(edge);
      // The containers' own storage (hash tables, arrays), not the cached objects they point to.
      const bytes = ownSize(target, 3);
      const entry = containers.get(name) ?? { distinct: 0, bytes: 0 };
      entry.distinct++;
      entry.bytes += bytes;
      containers.set(name, entry);
    }
  }
  const containerRows = [...containers.entries()]
    .map(([field, entry]) => ({
      field,
      distinct: entry.distinct,
      bytes: entry.bytes,
      bytesPerObject: cachedObjects === 0 ? 0 : round(entry.bytes / cachedObjects),
    }))
    .filter((row) => row.bytes >= 1024)
    .sort((a, b) => b.bytes - a.bytes);
  const containerBytes = containerRows.reduce((sum, row) => sum + row.bytes, 0);

  const rows = (map: Map<string, { count: number; bytes: number }>, limit: number): SizeRow[] =>
    [...map.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, limit)
      .map(([name, entry]) => ({ name, count: entry.count, bytes: entry.bytes, MiB: round(entry.bytes / (1 << 20)) }));
  return {
    file: path,
    fileMiB,
    nodes: nodeCount,
    liveHeapMiB: round(total / (1 << 20)),
    promises,
    byType: rows(byType, 12),
    byConstructor: rows(byConstructor, 15),
    cachedObjects,
    cachedObjectFields: fieldRows,
    cachedObjectBytesPerObject: cachedObjects === 0 ? 0 : round(perObject / cachedObjects),
    containers: containerRows,
    containerBytesPerObject: cachedObjects === 0 ? 0 : round(containerBytes / cachedObjects),
  };
}
