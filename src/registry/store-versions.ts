import type { ApiObject } from "../api/object.js";
import type { KeyValue } from "../storage/index.js";
import { apiVersionOf, type ResourceDefinition } from "./definition.js";
import { decodeStored, encodeForStorage } from "./stored-object.js";
import { stringifyJson } from "../util/deep-json.js";

/**
 * One served version's view of stored objects: the storage version is stored as is, other
 * versions (`storedAs`) are converted on the way in and out. With a `conversion` (a custom
 * resource's webhook) conversions are asynchronous and batched: use the `…Async` methods,
 * which every store path does; the synchronous ones apply `storedAs` only.
 */
export class VersionCodec {
  private readonly apiVersion: string;
  private readonly storageApiVersion: string;

  constructor(private readonly definition: ResourceDefinition) {
    this.apiVersion = apiVersionOf(definition);
    this.storageApiVersion = apiVersionOf(definition.storedAs ?? definition);
  }

  /** True when reads and writes convert through a round trip (watches then follow storage, not the cache). */
  get converts(): boolean {
    return this.definition.conversion !== undefined;
  }

  /** True when objects are stored as this version serves them (no `storedAs`, no conversion): the stored text is the served object's. */
  get storesAsServed(): boolean {
    return this.definition.storedAs === undefined && this.definition.conversion === undefined;
  }

  /** A stored entry as this version serves it, with its revision as `resourceVersion`. */
  decode(entry: KeyValue): ApiObject {
    return this.fromStorage(decodeStored(entry.value, entry.modRevision, this.definition));
  }

  /** Stored entries as this version serves them, converted in one batch. */
  async decodeAsync(entries: readonly KeyValue[]): Promise<ApiObject[]> {
    return this.fromStorageAsync(entries.map((entry) => decodeStored(entry.value, entry.modRevision, this.definition)));
  }

  /** The stored form of an object: converted to the storage version when this one differs. */
  encode(object: ApiObject): string {
    const storedAs = this.definition.storedAs;
    return encodeForStorage(storedAs === undefined ? object : storedAs.toStorage(object));
  }

  async encodeAsync(object: ApiObject): Promise<string> {
    const conversion = this.definition.conversion;
    if (conversion === undefined) return this.encode(object);
    const [converted] = await this.convert([object], this.storageApiVersion);
    return encodeForStorage(converted ?? object);
  }

  /** A storage-version object as this version serves it (identity for the storage version). */
  fromStorage(object: ApiObject): ApiObject {
    const storedAs = this.definition.storedAs;
    if (storedAs === undefined) return object;
    const converted = storedAs.fromStorage(object);
    converted.metadata.resourceVersion = object.metadata.resourceVersion;
    return converted;
  }

  /** Stored objects (whichever version each was stored at) as this version serves them. */
  async fromStorageAsync(objects: readonly ApiObject[]): Promise<ApiObject[]> {
    if (this.definition.conversion === undefined) return objects.map((object) => this.fromStorage(object));
    return this.convert(objects, this.apiVersion);
  }

  /** Only objects not yet at `apiVersion` go to the converter; each keeps its resourceVersion. */
  private async convert(objects: readonly ApiObject[], apiVersion: string): Promise<ApiObject[]> {
    const conversion = this.definition.conversion;
    const pending = objects.filter((object) => object.apiVersion !== apiVersion);
    if (conversion === undefined || pending.length === 0) return [...objects];
    const converted = await conversion.convert(pending, apiVersion);
    let next = 0;
    return objects.map((object) => {
      if (object.apiVersion === apiVersion) return object;
      const out = converted[next++] ?? object;
      if (object.metadata.resourceVersion !== undefined) out.metadata.resourceVersion = object.metadata.resourceVersion;
      return out;
    });
  }

  /** For versions served from another's storage: stored-version JSON → this version's JSON. */
  jsonConverter(): ((json: string) => string) | undefined {
    if (this.definition.storedAs === undefined) return undefined;
    return (json) => stringifyJson(this.fromStorage(JSON.parse(json) as ApiObject));
  }
}
