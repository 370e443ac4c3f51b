import type { ApiObject } from "../api/object.js";
import { cloneJson, stringifyJson } from "../util/deep-json.js";

/** A list entry: encoded JSON, decodable on demand (Tables, YAML, controllers). */
export interface ListItem {
  readonly json: string;
  /** The cache entry it was read from, when it is one: other encodings of it are made once per entry. */
  readonly source?: object;
  decode(): ApiObject;
}

export function listItem(json: string, source?: object): ListItem {
  return { json, ...(source === undefined ? {} : { source }), decode: () => JSON.parse(json) as ApiObject };
}

export function listItemOf(object: ApiObject): ListItem {
  return { json: stringifyJson(object), decode: () => cloneJson(object) };
}
