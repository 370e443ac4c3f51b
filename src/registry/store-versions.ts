import type { ApiObject } from "../api/object.js";
import type { KeyValue } from "../storage/index.js";
import type { ResourceDefinition } from "./definition.js";
import { decodeStored, encodeForStorage } from "./stored-object.js";

/**
 * One served version's view of stored objects: the storage version is stored as is, other
 * versions (`storedAs`) are converted on the way in and out.
 */
export class VersionCodec {
  constructor(private readonly definition: ResourceDefinition) {}

  /** A stored entry as this version serves it, with its revision as `resourceVersion`. */
  decode(entry: KeyValue): ApiObject {
    return this.fromStorage(decodeStored(entry.value, entry.modRevision, this.definition));
  }

  /** The stored form of an object: converted to the storage version when this one differs. */
  encode(object: ApiObject): string {
    const storedAs = this.definition.storedAs;
    return encodeForStorage(storedAs === undefined ? object : storedAs.toStorage(object));
  }

  /** A storage-version object as this version serves it (identity for the storage version). */
  fromStorage(object: ApiObject): ApiObject {
    const storedAs = this.definition.storedAs;
    if (storedAs === undefined) return object;
    const converted = storedAs.fromStorage(object);
    converted.metadata.resourceVersion = object.metadata.resourceVersion;
    return converted;
  }

  /** For versions served from another's storage: stored-version JSON → this version's JSON. */
  jsonConverter(): ((json: string) => string) | undefined {
    if (this.definition.storedAs === undefined) return undefined;
    return (json) => JSON.stringify(this.fromStorage(JSON.parse(json) as ApiObject));
  }
}
