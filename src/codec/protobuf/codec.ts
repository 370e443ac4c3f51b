import { badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import type { ProtoShape } from "../../api/proto/numbering.js";
import type { Profile } from "../../api/profile.js";
import { builtinCatalogue, type SchemaCatalogue } from "../../api/schema/catalogue.js";
import { decodeEnvelope, encodeEnvelope, envelopeParts, watchFrame } from "./envelope.js";
import { decodeMessage, encodeMessage } from "./message.js";
import { LruCache } from "../../util/lru-cache.js";

/** An object to encode: its JSON, and optionally what it was read from, to encode that only once. */
export interface EncodeSource {
  readonly json: string;
  /** A long-lived object the encoding may be remembered by (a watch cache entry). */
  readonly source?: object;
}

/** Kinds every group version has a message for, whatever the catalogue serves. */
const META_MESSAGES: Readonly<Record<string, string>> = {
  Status: "meta.v1.Status",
  DeleteOptions: "meta.v1.DeleteOptions",
};

/** Protobuf messages remembered per source object, at most (about 16 MiB of 1 KiB objects). */
const PROTOBUF_MEMO_ENTRIES = 16_384;

/**
 * The protobuf form of every built-in kind of one profile: objects in kube's envelope, lists
 * item by item, watch frames. Kinds the catalogue has no message for (custom resources) have
 * none: `shapeOf` is undefined and callers fall back to JSON.
 */
export class ProtobufCodec {
  /**
   * Each remembered source's message as a list element (tag 2, length, message), with the shape
   * it was encoded for and where the message starts: lists copy it whole, envelopes take the message.
   * Bounded: the watch cache keeps only the JSON of each object; protobuf bytes are made on first
   * need and only the most used are kept (a list larger than the memo encodes again).
   */
  private readonly raws = new LruCache<object, { readonly shape: ProtoShape; readonly element: Uint8Array; readonly start: number }>(PROTOBUF_MEMO_ENTRIES);
  private partial: ProtoShape | undefined;
  private partialList: ProtoShape | undefined;

  constructor(
    private readonly catalogue: SchemaCatalogue,
    private readonly profile: Pick<Profile, "apiDomain" | "clientApiDomains">,
  ) {}

  private readonly shapes = new Map<string, ProtoShape | undefined>();

  /** The message shape of `kind` in `apiVersion`; a client domain's spelling of a group counts as the profile's. */
  shapeOf(apiVersion: string, kind: string): ProtoShape | undefined {
    const key = `${apiVersion}\u0000${kind}`;
    if (this.shapes.has(key)) return this.shapes.get(key);
    const shape = this.findShape(apiVersion, kind);
    // Keys come from request bodies too: keep only what names a message, and a bounded number of misses.
    if (shape !== undefined || this.shapes.size < 1024) this.shapes.set(key, shape);
    return shape;
  }

  private findShape(apiVersion: string, kind: string): ProtoShape | undefined {
    const slash = apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const meta = META_MESSAGES[kind];
    if (meta !== undefined) return this.catalogue.messageShape(meta);
    if (kind === "PartialObjectMetadata" || kind === "PartialObjectMetadataList") return this.partialShape(kind === "PartialObjectMetadataList");
    const own = this.catalogue.protoShape(group, version, kind);
    if (own !== undefined) return own;
    for (const domain of this.profile.clientApiDomains) {
      if (group.endsWith(`.${domain}`)) {
        const shape = this.catalogue.protoShape(`${group.slice(0, -domain.length)}${this.profile.apiDomain}`, version, kind);
        if (shape !== undefined) return shape;
      }
    }
    return undefined;
  }

  private partialShape(list: boolean): ProtoShape | undefined {
    const objectMeta = this.catalogue.messageShape("meta.v1.ObjectMeta");
    const listMeta = this.catalogue.messageShape("meta.v1.ListMeta");
    if (objectMeta === undefined || listMeta === undefined) return undefined;
    this.partial ??= { message: "meta.v1.PartialObjectMetadata", fields: new Map([["metadata", { number: 1, shape: objectMeta }]]) };
    this.partialList ??= {
      message: "meta.v1.PartialObjectMetadataList",
      fields: new Map([
        ["metadata", { number: 1, shape: listMeta }],
        ["items", { number: 2, shape: this.partial, cardinality: "list" }],
      ]),
    };
    return list ? this.partialList : this.partial;
  }

  /** Whether objects of `kind` have a protobuf form. */
  supports(apiVersion: string, kind: string): boolean {
    return this.shapeOf(apiVersion, kind) !== undefined;
  }

  /** An object (with apiVersion and kind) in its envelope. Throws when the kind has no message. */
  encode(object: Readonly<Record<string, unknown>>): Uint8Array {
    const apiVersion = String(object["apiVersion"] ?? "");
    const kind = String(object["kind"] ?? "");
    return encodeEnvelope(apiVersion, kind, encodeMessage(object, this.requireShape(apiVersion, kind)));
  }

  /** The message bytes of an object given as JSON, remembered by its source when it has one. */
  rawOf(item: EncodeSource, shape: ProtoShape): Uint8Array {
    const { element, start } = this.elementOf(item, shape);
    return element.subarray(start);
  }

  /** An object given as JSON as a list element (`items=2`), remembered by its source when it has one. */
  private elementOf(item: EncodeSource, shape: ProtoShape): { readonly element: Uint8Array; readonly start: number } {
    const known = item.source === undefined ? undefined : this.raws.get(item.source);
    if (known !== undefined && known.shape === shape) return known;
    const value: unknown = JSON.parse(item.json);
    if (!isPlainObject(value)) throw new TypeError("only objects have a protobuf form");
    const element = encodeMessage(value, shape, 2);
    // The tag is one byte; the length varint ends at the first byte below 0x80.
    let start = 1;
    while ((element[start] ?? 0) >= 0x80) start++;
    const entry = { shape, element, start: start + 1 };
    if (item.source !== undefined) this.raws.set(item.source, entry);
    return entry;
  }

  /** An object given as JSON in its envelope (its message bytes remembered by its source). */
  encodeJson(apiVersion: string, kind: string, item: EncodeSource): Uint8Array {
    return encodeEnvelope(apiVersion, kind, this.rawOf(item, this.requireShape(apiVersion, kind)));
  }

  /**
   * A list in its envelope as chunks: envelope head and ListMeta, then each item's bytes (each
   * encoded once per source), then the envelope's tail. Item lengths are known before the head is
   * written, so nothing is concatenated into one buffer.
   */
  encodeList(apiVersion: string, listKind: string, metadata: Readonly<Record<string, unknown>>, items: readonly EncodeSource[]): Uint8Array[] {
    const listShape = this.requireShape(apiVersion, listKind);
    const itemShape = listShape.fields.get("items")?.shape;
    const metaShape = listShape.fields.get("metadata")?.shape;
    if (itemShape === undefined || metaShape === undefined) throw new TypeError(`${listKind} is not a list message`);
    const chunks: Uint8Array[] = [encodeMessage(metadata, metaShape, 1)];
    let length = chunks[0]?.length ?? 0;
    for (const item of items) {
      const { element } = this.elementOf(item, itemShape);
      chunks.push(element);
      length += element.length;
    }
    const { head, tail } = envelopeParts(apiVersion, listKind, length);
    return [head, ...chunks, tail];
  }

  /** A watch frame for an event whose object is given as JSON (bookmarks, errors: any kind with a message). */
  frame(type: string, apiVersion: string, kind: string, item: EncodeSource): Uint8Array {
    return watchFrame(type, this.encodeJson(apiVersion, kind, item));
  }

  /** A watch frame for an object value. */
  frameOf(type: string, object: Readonly<Record<string, unknown>>): Uint8Array {
    return watchFrame(type, this.encode(object));
  }

  /**
   * A request body: the envelope's kind decoded into JSON with its apiVersion and kind. A kind
   * without a message is 415, as kube answers protobuf for a custom resource.
   */
  decode(bytes: Uint8Array): Record<string, unknown> {
    const envelope = decodeEnvelope(bytes);
    const shape = this.shapeOf(envelope.apiVersion, envelope.kind);
    if (shape === undefined) throw badRequest(`protobuf: no message for kind ${JSON.stringify(envelope.kind)} in ${JSON.stringify(envelope.apiVersion)}`);
    const body = decodeMessage(envelope.raw, shape);
    const items = body["items"];
    // List items carry no TypeMeta on the wire; JSON lists name it on each.
    if (envelope.kind.endsWith("List") && Array.isArray(items)) {
      const itemKind = envelope.kind.slice(0, -"List".length);
      body["items"] = items.map((item: unknown) => (isPlainObject(item) ? { apiVersion: envelope.apiVersion, kind: itemKind, ...item } : item));
    }
    return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...body };
  }

  private requireShape(apiVersion: string, kind: string): ProtoShape {
    const shape = this.shapeOf(apiVersion, kind);
    if (shape === undefined) throw new TypeError(`no protobuf message for ${kind} in ${apiVersion}`);
    return shape;
  }
}

const codecs = new WeakMap<Profile, ProtobufCodec>();

/** The codec of a profile's built-in kinds (one per profile: shapes and plans are computed once). */
export function protobufCodec(profile: Profile): ProtobufCodec {
  let codec = codecs.get(profile);
  if (codec === undefined) {
    codec = new ProtobufCodec(builtinCatalogue(profile), profile);
    codecs.set(profile, codec);
  }
  return codec;
}

/** The media types read and written as protobuf under a profile: its own first, then the client spellings. */
export function protobufMediaTypes(profile: Pick<Profile, "protobufMediaType" | "clientProtobufMediaTypes">): readonly string[] {
  return [profile.protobufMediaType, ...profile.clientProtobufMediaTypes];
}
