import type { ApiObject } from "../api/object.js";

/** One stored object as an authenticator sees it: its revision, and the object decoded on demand. */
export interface ObjectSnapshot {
  /** Changes whenever the object does: a cheap identity for cached verdicts. */
  readonly revision: number;
  /** The decoded object; callers must not mutate it. */
  object(): ApiObject;
}

/**
 * How authenticators read the API's current objects (service accounts, pods, secrets, nodes
 * of the core group) without depending on the registry. The server's implementation answers
 * from the watch cache when it holds the object and from storage otherwise; `undefined` means
 * the object does not exist.
 */
export interface ObjectReader {
  read(plural: string, namespace: string, name: string): Promise<ObjectSnapshot | undefined>;
}

/** Decodes a secret's `data[key]` (base64) as UTF-8; undefined when absent. */
export function secretValue(secret: ApiObject, key: string): string | undefined {
  const data = secret["data"];
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const value = (data as Record<string, unknown>)[key];
  return typeof value === "string" ? Buffer.from(value, "base64").toString("utf8") : undefined;
}
