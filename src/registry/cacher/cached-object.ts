import type { ApiObject } from "../../api/object.js";
import { internalError } from "../../api/errors.js";
import { stringifyJson } from "../../util/deep-json.js";
import { StoredValueError, storedTextProblem } from "../stored-object.js";
import { metadataFields, metadataRange, spliceResourceVersion } from "./splice-version.js";

/**
 * One object as the watch cache keeps it: its API JSON (with `resourceVersion`) encoded once,
 * plus what selectors read. The decoded object is not kept: JSON text is several times smaller.
 * Name and namespace are kept apart from the kind's other selectable fields, which most kinds
 * do not have (no per-object map for them).
 */
export interface CachedObject {
  readonly key: string;
  readonly revision: number;
  readonly json: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Values of the kind's selectable fields beyond name and namespace, if it has any. */
  readonly extraFields: Readonly<Record<string, string>> | undefined;
}

/** The field-selector view of a cached object. */
export function cachedField(object: CachedObject, field: string): string | undefined {
  if (field === "metadata.name") return object.name;
  if (field === "metadata.namespace") return object.namespace;
  return object.extraFields?.[field];
}

/** Per-resource coding the cache needs from the store. */
export interface ResourceCodec {
  /** Stored value → API object with `resourceVersion` set to `revision`. */
  decode(value: string, revision: number): ApiObject;
  /** Values of the kind's selectable fields beyond name and namespace (undefined: none). */
  extraFieldsOf(object: ApiObject): Record<string, string> | undefined;
  /**
   * True when `decode` only parses the stored JSON and sets `metadata.resourceVersion` (no
   * defaults, no apiVersion change): the cached JSON is then the stored text with the version
   * spliced in (`splice-version.ts`) instead of the object encoded again.
   */
  readonly decodeOnlyStamps?: boolean;
  /**
   * True when the kind has no selectable fields beyond name and namespace (`extraFieldsOf` is
   * always undefined). With `decodeOnlyStamps`, a cached object is then made without decoding the
   * value: name and namespace come from the key, labels from the JSON on first need.
   */
  readonly noExtraFields?: boolean;
  /**
   * For kinds whose `decode` may change more than the version (custom resources: defaults on
   * read): decodes and tells whether this value's object was left as stored but for the version,
   * so its cached JSON can be spliced too (most objects were defaulted when written).
   */
  decodeStamped?(value: string, revision: number): { readonly object: ApiObject; readonly onlyStamped: boolean };
  /** `kind` and `apiVersion` of the resource, for bookmarks. */
  readonly kind: string;
  readonly apiVersion: string;
}

/**
 * The cached form of a stored value (a load, a re-list, a recode). Kinds whose selectors read only
 * metadata are not decoded (issue #21: decoding was most of the cost of loading 100,000 objects,
 * and its garbage most of the rest): name and namespace are read from the key, and the stored text
 * is kept as it is until first read, when the version is spliced in (`LazyCachedObject`).
 */
export function toCachedObject(codec: ResourceCodec, key: string, value: string, revision: number, prefix: string): CachedObject {
  if (codec.decodeOnlyStamps === true && codec.noExtraFields === true && key.startsWith(prefix)) return new LazyCachedObject(key, revision, value, prefix);
  return decodeToCache(codec, key, value, revision).cached;
}

/**
 * toCachedObject for a value read from the store (a load, a re-list): one that cannot be whole
 * stored JSON (`storedTextProblem`) is a StoredValueError instead of a cached object, so a torn
 * value is refused where the store is read whole rather than served (the lazy path never parses it).
 */
export function loadCachedObject(codec: ResourceCodec, key: string, value: string, revision: number, prefix: string): CachedObject {
  const problem = storedTextProblem(value);
  if (problem !== undefined) throw new StoredValueError(key, revision, problem);
  return toCachedObject(codec, key, value, revision, prefix);
}

/** Not yet read from the JSON. */
const UNREAD = Symbol("unread");

/**
 * A cached object made without decoding its stored value: its JSON gets `resourceVersion` spliced
 * in on first read (then kept, replacing the stored text), its labels are parsed from the
 * metadata on first need (then kept). The key is `<prefix><namespace>/<name>` or `<prefix><name>`
 * (registry/store-keys.ts: names and namespaces hold no `/`), so name and namespace are its last
 * segments. Only for kinds whose decoding only stamps the version (`ResourceCodec.decodeOnlyStamps`).
 */
class LazyCachedObject implements CachedObject {
  readonly extraFields: undefined = undefined;
  /** The stored text until the first read of `json`, then the JSON with the version. */
  private text: string;
  private stamped = false;
  private labelsValue: Readonly<Record<string, string>> | undefined | typeof UNREAD = UNREAD;
  /** Where the key's part below the resource prefix starts (a small integer: no heap object, unlike two strings per object). */
  private readonly start: number;

  constructor(
    readonly key: string,
    readonly revision: number,
    stored: string,
    prefix: string,
  ) {
    this.text = stored;
    this.start = prefix.length;
  }

  /** Read by field selectors only: sliced from the key on each read rather than kept. */
  get name(): string {
    const slash = this.key.indexOf("/", this.start);
    return slash < 0 ? this.key.slice(this.start) : this.key.slice(slash + 1);
  }

  get namespace(): string | undefined {
    const slash = this.key.indexOf("/", this.start);
    return slash < 0 ? undefined : this.key.slice(this.start, slash);
  }

  get json(): string {
    if (!this.stamped) {
      this.text = stampVersion(this.text, this.revision);
      this.stamped = true;
    }
    return this.text;
  }

  get labels(): Readonly<Record<string, string>> | undefined {
    if (this.labelsValue === UNREAD) this.labelsValue = metadataOf(this.text).labels;
    return this.labelsValue;
  }

  /** The text the metadata can be read from without stamping the version: stored or stamped, the metadata is the same but for it. */
  get metadataSource(): string {
    return this.text;
  }
}

/** The stored text with `metadata.resourceVersion` set, as decoding and encoding again would make it. */
function stampVersion(stored: string, revision: number): string {
  const spliced = spliceResourceVersion(stored, String(revision));
  if (spliced !== undefined) return spliced;
  let object: ApiObject;
  try {
    object = JSON.parse(stored) as ApiObject;
  } catch (error) {
    throw internalError("a stored object is not valid JSON", error);
  }
  object.metadata.resourceVersion = String(revision);
  return stringifyJson(object);
}

/** An object's metadata, parsing only the metadata of its JSON when it can be found. */
function metadataOf(json: string): ApiObject["metadata"] {
  const range = metadataRange(json);
  if (range === undefined) return (JSON.parse(json) as ApiObject).metadata;
  return JSON.parse(json.slice(range.start, range.end + 1)) as ApiObject["metadata"];
}

/**
 * The named fields of a cached object's metadata (`resourceVersion` may be missing), parsed from
 * its JSON without stamping the version into an object whose JSON was not read yet: for followers
 * that read a few metadata fields of every object (the garbage collector's start).
 */
export function cachedMetadata(object: CachedObject, names: ReadonlySet<string>): ApiObject["metadata"] {
  const text = object instanceof LazyCachedObject ? object.metadataSource : object.json;
  const fields = metadataFields(text, names) ?? pick(metadataOf(text), names);
  return fields as ApiObject["metadata"];
}

function pick(metadata: ApiObject["metadata"], names: ReadonlySet<string>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(metadata)) if (names.has(name)) picked[name] = value;
  return picked;
}

/**
 * toCachedObject, also giving the decoded object it encoded (followers of the change read it instead of parsing `json` again).
 * `stamped`: `value` with the version spliced in, when the writer made it already; `written`: the
 * object decoding `value` gives, when the writer has it (both used only when decoding only stamps).
 */
export function decodeToCache(
  codec: ResourceCodec,
  key: string,
  value: string,
  revision: number,
  stamped?: string,
  written?: ApiObject,
): { cached: CachedObject; object: ApiObject } {
  let object: ApiObject;
  let onlyStamped = codec.decodeOnlyStamps === true;
  if (onlyStamped && written !== undefined) object = written;
  else if (!onlyStamped && codec.decodeStamped !== undefined) {
    const decoded = codec.decodeStamped(value, revision);
    object = decoded.object;
    onlyStamped = decoded.onlyStamped;
  } else object = codec.decode(value, revision);
  const metadata = object.metadata;
  const cached: CachedObject = {
    key,
    revision,
    json: (onlyStamped ? (stamped ?? spliceResourceVersion(value, String(revision))) : undefined) ?? stringifyJson(object),
    name: metadata.name ?? "",
    namespace: metadata.namespace,
    // A copy: the decoded object goes on to the feeds' followers.
    labels: metadata.labels === undefined ? undefined : { ...metadata.labels },
    extraFields: codec.extraFieldsOf(object),
  };
  return { cached, object };
}

/** The same object at another revision (a DELETED event reports the deletion's revision). */
export function atRevision(object: CachedObject, revision: number): string {
  const parsed = JSON.parse(object.json) as ApiObject;
  parsed.metadata.resourceVersion = String(revision);
  return stringifyJson(parsed);
}
