import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { badRequest } from "../../api/errors.js";
import { expectWireType, readBytes, readTag, skipField } from "./wire-read.js";

/**
 * kube's protobuf envelope: the 4 magic bytes `k8s\0`, then a `runtime.Unknown` message —
 * `typeMeta=1 {apiVersion=1, kind=2}`, `raw=2` (the object's own message), `contentEncoding=3`,
 * `contentType=4` (both written empty, as Go writes every non-pointer string).
 * Watch streams are frames of a 4-byte big-endian length and a `meta.v1.WatchEvent`
 * `{type=1, object=2 {raw=1: the object in its envelope}}`.
 */
export const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const utf8 = new TextDecoder();

/** What a decoded envelope holds. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/** The envelope before and after `raw`, for a raw body of `rawLength` bytes written in between (lists, streamed). */
export function envelopeParts(apiVersion: string, kind: string, rawLength: number): { readonly head: Uint8Array; readonly tail: Uint8Array } {
  const writer = new BinaryWriter();
  writer.raw(MAGIC);
  writer.tag(1, WireType.LengthDelimited).fork();
  writer.tag(1, WireType.LengthDelimited).string(apiVersion).tag(2, WireType.LengthDelimited).string(kind);
  writer.join();
  writer.tag(2, WireType.LengthDelimited).uint32(rawLength);
  return { head: writer.finish(), tail: ENVELOPE_TAIL };
}

/** contentEncoding = "" and contentType = "". */
const ENVELOPE_TAIL = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

/** One object in its envelope. */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const { head, tail } = envelopeParts(apiVersion, kind, raw.length);
  return Buffer.concat([head, raw, tail]);
}

/** Reads an envelope; a body without the magic prefix, a content encoding or a foreign content type is 400. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < MAGIC.length || MAGIC.some((byte, index) => bytes[index] !== byte))
    throw badRequest('protobuf: the body does not start with the magic prefix "k8s\\x00"');
  const reader = new BinaryReader(bytes.subarray(MAGIC.length));
  let apiVersion = "";
  let kind = "";
  let raw: Uint8Array = new Uint8Array();
  while (reader.pos < reader.len) {
    const [number, wireType] = readTag(reader, "runtime.Unknown");
    if (number > 4) {
      skipField(reader, wireType, "runtime.Unknown", number);
      continue;
    }
    expectWireType(wireType, WireType.LengthDelimited, "runtime.Unknown", number);
    const value = readBytes(reader, "runtime.Unknown", number);
    if (number === 2) raw = value;
    else if (number === 1) {
      const typeMeta = new BinaryReader(value);
      while (typeMeta.pos < typeMeta.len) {
        const [inner, innerWireType] = readTag(typeMeta, "runtime.TypeMeta");
        if (inner !== 1 && inner !== 2) {
          skipField(typeMeta, innerWireType, "runtime.TypeMeta", inner);
          continue;
        }
        expectWireType(innerWireType, WireType.LengthDelimited, "runtime.TypeMeta", inner);
        const text = utf8.decode(readBytes(typeMeta, "runtime.TypeMeta", inner));
        if (inner === 1) apiVersion = text;
        else kind = text;
      }
    } else if (value.length > 0) {
      const text = utf8.decode(value);
      if (number === 3) throw badRequest(`protobuf: content encoding ${JSON.stringify(text)} is not supported`);
      if (!/protobuf$/.test(text)) throw badRequest(`protobuf: content type ${JSON.stringify(text)} is not supported inside the envelope`);
    }
  }
  return { apiVersion, kind, raw };
}

/** One watch frame: length prefix and a WatchEvent whose object is `object` (an enveloped object). */
export function watchFrame(type: string, object: Uint8Array): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(1, WireType.LengthDelimited).string(type);
  writer.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).bytes(object).join();
  const event = writer.finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
