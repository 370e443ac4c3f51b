import type { ApiObject } from "../api/object.js";

/** A list entry: encoded JSON, decodable on demand (Tables, YAML, controllers). */
export interface ListItem {
  readonly json: string;
  decode(): ApiObject;
}

export function listItem(json: string): ListItem {
  return { json, decode: () => JSON.parse(json) as ApiObject };
}

export function listItemOf(object: ApiObject): ListItem {
  return { json: JSON.stringify(object), decode: () => structuredClone(object) };
}
