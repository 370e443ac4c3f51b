import type { ApiObject } from "../../api/object.js";

/**
 * One object as the watch cache keeps it: its API JSON (with `resourceVersion`) encoded once,
 * plus what selectors read. The decoded object is not kept: JSON text is several times smaller.
 */
export interface CachedObject {
  readonly key: string;
  readonly revision: number;
  readonly json: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly fields: ReadonlyMap<string, string>;
}

/** A list entry: encoded JSON, decodable on demand (Tables, YAML, controllers). */
export interface ListItem {
  readonly json: string;
  decode(): ApiObject;
}

/** Per-resource coding the cache needs from the store. */
export interface ResourceCodec {
  /** Stored value → API object with `resourceVersion` set to `revision`. */
  decode(value: string, revision: number): ApiObject;
  /** Field values the kind's field selectors read. */
  fieldsOf(object: ApiObject): Map<string, string>;
  /** `kind` and `apiVersion` of the resource, for bookmarks. */
  readonly kind: string;
  readonly apiVersion: string;
}

export function toCachedObject(codec: ResourceCodec, key: string, value: string, revision: number): CachedObject {
  const object = codec.decode(value, revision);
  return { key, revision, json: JSON.stringify(object), labels: object.metadata.labels, fields: codec.fieldsOf(object) };
}

/** The same object at another revision (a DELETED event reports the deletion's revision). */
export function atRevision(object: CachedObject, revision: number): string {
  const parsed = JSON.parse(object.json) as ApiObject;
  parsed.metadata.resourceVersion = String(revision);
  return JSON.stringify(parsed);
}

export function listItem(json: string): ListItem {
  return { json, decode: () => JSON.parse(json) as ApiObject };
}

export function listItemOf(object: ApiObject): ListItem {
  return { json: JSON.stringify(object), decode: () => structuredClone(object) };
}
