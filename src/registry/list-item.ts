import type { ApiObject } from "../api/object.js";
import { cloneJson, stringifyJson } from "../util/deep-json.js";

/** A list entry: encoded JSON, decodable on demand (Tables, YAML, controllers). */
export interface ListItem {
  readonly json: string;
  /** The cache entry it was read from, when it is one: other encodings of it are made once per entry. */
  readonly source?: object;
  decode(): ApiObject;
}

/**
 * An item read as JSON (the watch cache's): a class, not an object literal with a closure and a
 * spread, because a list makes one per item (10,000 for a whole list).
 */
class JsonListItem implements ListItem {
  constructor(
    readonly json: string,
    readonly source: object | undefined,
  ) {}

  decode(): ApiObject {
    return JSON.parse(this.json) as ApiObject;
  }
}

export function listItem(json: string, source?: object): ListItem {
  return new JsonListItem(json, source);
}

export function listItemOf(object: ApiObject): ListItem {
  return { json: stringifyJson(object), decode: () => cloneJson(object) };
}
