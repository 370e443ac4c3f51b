import { BinaryReader, type BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import type { ProtoShape } from "../../api/proto/numbering.js";
import { expectWireType, readBytes, readTag } from "./wire-read.js";
import { refuseDeepValue } from "../decode.js";

/** How a leaf holding a schema (JSONSchemaProps) writes and reads it: the message codec's own functions. */
type WriteSchema = (writer: BinaryWriter, value: Readonly<Record<string, unknown>>, shape: ProtoShape) => void;
type ReadSchema = (bytes: Uint8Array, shape: ProtoShape, depth: number) => Record<string, unknown>;

/**
 * Messages whose JSON form is not an object of their fields, each written and read as a whole:
 * - `meta.v1.Time` / `MicroTime`: `{seconds=1, nanos=2}` ↔ RFC 3339 in UTC (seconds / microseconds);
 *   an empty message or Go's zero time (seconds -62135596800) is no value at all (JSON null);
 * - `resource.Quantity`: `{string=1}`; `intstr.IntOrString`: `{type=1, intVal=2, strVal=3}`;
 * - `runtime.RawExtension`, `apiextensions.v1.JSON`, `meta.v1.FieldsV1`: `{raw=1}` holding JSON text;
 * - `<group>.ExtraValue`: `{items=1}`, a bare string list in JSON;
 * - JSONSchemaProps' `…OrArray`, `…OrBool`, `…OrStringArray`: one of two forms, the schema being
 *   the enclosing JSONSchemaProps' own shape;
 * - a message without fields (`CustomResourceSubresourceStatus`): `{}`.
 */

const ZERO_TIME_SECONDS = -62135596800;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const RAW_JSON = new Set(["runtime.RawExtension", "apiextensions.v1.JSON", "meta.v1.FieldsV1"]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function writeLeaf(writer: BinaryWriter, number: number, leaf: string, value: unknown, context: ProtoShape, writeMessage: WriteSchema): void {
  writer.tag(number, WireType.LengthDelimited).fork();
  writeLeafBody(writer, leaf, value, context, writeMessage);
  writer.join();
}

function writeLeafBody(writer: BinaryWriter, leaf: string, value: unknown, context: ProtoShape, writeMessage: WriteSchema): void {
  if (leaf === "meta.v1.Time" || leaf === "meta.v1.MicroTime") {
    const { seconds, nanos } = parseTime(String(value));
    writer.tag(1, WireType.Varint).int64(seconds).tag(2, WireType.Varint).int32(nanos);
    return;
  }
  if (leaf === "resource.Quantity") {
    writer.tag(1, WireType.LengthDelimited).string(String(value));
    return;
  }
  if (leaf === "intstr.IntOrString") {
    const text = typeof value === "string";
    writer.tag(1, WireType.Varint).int64(text ? 1 : 0);
    writer.tag(2, WireType.Varint).int32(text ? 0 : Math.trunc(Number(value)));
    writer.tag(3, WireType.LengthDelimited).string(text ? value : "");
    return;
  }
  if (RAW_JSON.has(leaf)) {
    writer.tag(1, WireType.LengthDelimited).bytes(Buffer.from(JSON.stringify(value)));
    return;
  }
  if (leaf.endsWith(".ExtraValue")) {
    if (!Array.isArray(value)) throw new TypeError(`${leaf}: expected a list`);
    for (const item of value) writer.tag(1, WireType.LengthDelimited).string(String(item));
    return;
  }
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrBool") {
    // An object is a schema that allows; a boolean only allows or not.
    writer.tag(1, WireType.Varint).bool(typeof value === "boolean" ? value : true);
    if (isPlainObject(value)) writeSchema(writer, 2, value, context, writeMessage);
    return;
  }
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrArray") {
    if (Array.isArray(value)) for (const item of value) writeSchema(writer, 2, item, context, writeMessage);
    else writeSchema(writer, 1, value, context, writeMessage);
    return;
  }
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrStringArray") {
    if (Array.isArray(value)) for (const item of value) writer.tag(2, WireType.LengthDelimited).string(String(item));
    else writeSchema(writer, 1, value, context, writeMessage);
    return;
  }
  if (isPlainObject(value) && Object.keys(value).length === 0) return;
  throw new TypeError(`no protobuf form for ${leaf}`);
}

function writeSchema(writer: BinaryWriter, number: number, value: unknown, schema: ProtoShape, writeMessage: WriteSchema): void {
  if (!isPlainObject(value)) throw new TypeError(`${schema.message}: expected a schema object`);
  writer.tag(number, WireType.LengthDelimited).fork();
  writeMessage(writer, value, schema);
  writer.join();
}

/** A leaf's JSON value; undefined when the message stands for no value (Go's zero time, an empty raw extension). */
export function readLeaf(bytes: Uint8Array, leaf: string, context: ProtoShape, depth: number, decodeMessage: ReadSchema): unknown {
  const fields = readFields(bytes, leaf);
  if (leaf === "meta.v1.Time" || leaf === "meta.v1.MicroTime") {
    if (bytes.length === 0) return undefined;
    const seconds = Number(asVarint(fields.get(1)?.[0], leaf) ?? 0);
    const nanos = Number(asVarint(fields.get(2)?.[0], leaf) ?? 0);
    if (seconds === ZERO_TIME_SECONDS && nanos === 0) return undefined;
    return formatTime(seconds, nanos, leaf === "meta.v1.MicroTime");
  }
  if (leaf === "resource.Quantity") {
    const text = asText(fields.get(1)?.[0], leaf) ?? "";
    return text === "" ? "0" : text;
  }
  if (leaf === "intstr.IntOrString") {
    const type = Number(asVarint(fields.get(1)?.[0], leaf) ?? 0);
    if (type === 1) return asText(fields.get(3)?.[0], leaf) ?? "";
    const intVal = Number(asVarint(fields.get(2)?.[0], leaf) ?? 0);
    return (intVal << 0) | 0;
  }
  if (RAW_JSON.has(leaf)) {
    const raw = asBytes(fields.get(1)?.[0], leaf);
    if (raw === undefined || raw.length === 0) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(raw)) as unknown;
    } catch (error) {
      throw badRequest(`protobuf: ${leaf} does not hold JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    // Raw JSON inside a message is bounded as a JSON body is (kube keeps it as bytes; here it is a value the pipeline walks).
    return refuseDeepValue(value, `protobuf: ${leaf}`);
  }
  if (leaf.endsWith(".ExtraValue")) return (fields.get(1) ?? []).map((item) => asText(item, leaf) ?? "");
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrBool") {
    const schema = asBytes(fields.get(2)?.[0], leaf);
    if (schema !== undefined) return decodeMessage(schema, context, depth);
    return asVarint(fields.get(1)?.[0], leaf) === 1n;
  }
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrArray") {
    const many = fields.get(2);
    if (many !== undefined) return many.map((item) => decodeMessage(asBytes(item, leaf) ?? new Uint8Array(), context, depth));
    return decodeMessage(asBytes(fields.get(1)?.[0], leaf) ?? new Uint8Array(), context, depth);
  }
  if (leaf === "apiextensions.v1.JSONSchemaPropsOrStringArray") {
    const strings = fields.get(2);
    if (strings !== undefined) return strings.map((item) => asText(item, leaf) ?? "");
    return decodeMessage(asBytes(fields.get(1)?.[0], leaf) ?? new Uint8Array(), context, depth);
  }
  if (fields.size === 0) return {};
  throw badRequest(`protobuf: unknown field number ${[...fields.keys()][0]} in ${leaf}`);
}

type RawValue = { readonly wireType: WireType.Varint; readonly value: bigint } | { readonly wireType: WireType.LengthDelimited; readonly value: Uint8Array };

/** A small message's fields by number, each value as read (varint or bytes); other wire types are refused. */
function readFields(bytes: Uint8Array, leaf: string): Map<number, RawValue[]> {
  const reader = new BinaryReader(bytes);
  const fields = new Map<number, RawValue[]>();
  while (reader.pos < reader.len) {
    const [number, wireType] = readTag(reader, leaf);
    let value: RawValue;
    if (wireType === WireType.Varint) {
      try {
        value = { wireType, value: BigInt(reader.int64()) };
      } catch {
        throw badRequest(`protobuf: ${leaf} is truncated`);
      }
    } else if (wireType === WireType.LengthDelimited) value = { wireType, value: readBytes(reader, leaf, number) };
    else throw badRequest(`protobuf: field ${number} of ${leaf} has wire type ${wireType}, expected 0 or 2`);
    const list = fields.get(number) ?? [];
    list.push(value);
    fields.set(number, list);
  }
  return fields;
}

function asVarint(value: RawValue | undefined, leaf: string): bigint | undefined {
  if (value === undefined) return undefined;
  expectWireType(value.wireType, WireType.Varint, leaf, 0);
  return value.value as bigint;
}

function asBytes(value: RawValue | undefined, leaf: string): Uint8Array | undefined {
  if (value === undefined) return undefined;
  expectWireType(value.wireType, WireType.LengthDelimited, leaf, 0);
  return value.value as Uint8Array;
}

function asText(value: RawValue | undefined, leaf: string): string | undefined {
  const bytes = asBytes(value, leaf);
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest(`protobuf: a string of ${leaf} is not valid UTF-8`);
  }
}

/** Recent conversions: objects repeat the same few timestamps (creation, managedFields). */
const parsedTimes = new Map<string, { seconds: number; nanos: number }>();
const formattedTimes = new Map<string, string>();

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= 4096) cache.clear();
  cache.set(key, value);
  return value;
}

/** Seconds since the epoch and nanoseconds of an RFC 3339 time (any offset). */
export function parseTime(text: string): { seconds: number; nanos: number } {
  return parsedTimes.get(text) ?? remember(parsedTimes, text, parseTimeText(text));
}

/** RFC 3339 in UTC: whole seconds for Time, six fraction digits for MicroTime (as Go formats them). */
export function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const key = `${seconds}.${micro ? nanos : 0}`;
  return formattedTimes.get(key) ?? remember(formattedTimes, key, formatTimeValue(seconds, nanos, micro));
}

function parseTimeText(text: string): { seconds: number; nanos: number } {
  const match = RFC3339.exec(text);
  if (match === null) throw new TypeError(`not an RFC 3339 time: ${JSON.stringify(text)}`);
  const [, year, month, day, hour, minute, second, fraction = "", sign, offsetHours, offsetMinutes] = match;
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) / 1000;
  const offset = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  return { seconds: utc - offset, nanos: Number(fraction.padEnd(9, "0")) };
}

function formatTimeValue(seconds: number, nanos: number, micro: boolean): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}
