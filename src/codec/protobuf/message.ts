import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import type { ProtoField, ProtoShape } from "../../api/proto/numbering.js";
import { readLeaf, writeLeaf } from "./leaves.js";
import { expectWireType, isApiError, readBytes, readTag, skipField, truncated } from "./wire-read.js";

/**
 * JSON objects ↔ kube's protobuf messages, driven by a kind's `ProtoShape` (field numbers from
 * `api/proto/fields`). The wire itself is @bufbuild/protobuf's BinaryWriter/BinaryReader.
 *
 * Encoding writes what the JSON has, fields in ascending number order as Go's generated code
 * does, map entries by sorted key; Go-embedded structs become the nested messages they are on the
 * wire. Decoding skips field numbers a kind's message does not declare (a newer client's fields,
 * as kube's generated code does), refuses wrong wire types, truncated or overlong lengths and
 * nesting past `MAX_DEPTH` with a 400 naming the message, and drops zero scalars except for fields
 * that keep them (`presence.ts`).
 */

/** Messages nested deeper than this are refused (JSONSchemaProps is the only recursive kind). */
export const MAX_DEPTH = 100;

type Entry = { readonly kind: "field"; readonly number: number; readonly name: string; readonly field: ProtoField } | EmbeddedEntry;
interface EmbeddedEntry {
  readonly kind: "embedded";
  readonly number: number;
  readonly entries: Entry[];
}

interface Plan {
  /** Entries in ascending field number, embedded structs as nested plans. */
  readonly entries: readonly Entry[];
  /** The same by number, for decoding. */
  readonly byNumber: ReadonlyMap<number, Entry>;
}

const plans = new WeakMap<ProtoShape, Plan>();
const embeddedPlans = new WeakMap<EmbeddedEntry, Plan>();

function planOf(shape: ProtoShape): Plan {
  let plan = plans.get(shape);
  if (plan !== undefined) return plan;
  const root: Entry[] = [];
  for (const [name, field] of shape.fields) {
    let level = root;
    for (const number of field.embeddedIn ?? []) {
      let embedded = level.find((entry): entry is EmbeddedEntry => entry.kind === "embedded" && entry.number === number);
      if (embedded === undefined) {
        embedded = { kind: "embedded", number, entries: [] };
        level.push(embedded);
      }
      level = embedded.entries;
    }
    level.push({ kind: "field", number: field.number, name, field });
  }
  plan = finish(root);
  plans.set(shape, plan);
  return plan;
}

function finish(entries: Entry[]): Plan {
  entries.sort((a, b) => a.number - b.number);
  return { entries, byNumber: new Map(entries.map((entry) => [entry.number, entry])) };
}

function embeddedPlan(entry: EmbeddedEntry): Plan {
  let plan = embeddedPlans.get(entry);
  if (plan === undefined) {
    plan = finish(entry.entries);
    embeddedPlans.set(entry, plan);
  }
  return plan;
}

/**
 * One writer for every encoding: encoding is synchronous and `finish()` hands out a copy and keeps
 * the writer's buffer, so the buffer grows once instead of once per object.
 */
const shared = new BinaryWriter();

/** A JSON object as the bytes of `shape`'s message (no envelope); `prefix` is written first (a list element's tag and length, say). */
export function encodeMessage(value: Readonly<Record<string, unknown>>, shape: ProtoShape, prefix?: number): Uint8Array {
  try {
    if (prefix !== undefined) shared.tag(prefix, WireType.LengthDelimited).fork();
    writeMessage(shared, value, shape);
    if (prefix !== undefined) shared.join();
    return shared.finish();
  } catch (error) {
    shared.finish();
    throw error;
  }
}

/** Writes the fields of one message (without its own tag and length). */
export function writeMessage(writer: BinaryWriter, value: Readonly<Record<string, unknown>>, shape: ProtoShape): void {
  writeEntries(writer, value, planOf(shape).entries, shape);
}

function writeEntries(writer: BinaryWriter, value: Readonly<Record<string, unknown>>, entries: readonly Entry[], shape: ProtoShape): void {
  for (const entry of entries) {
    if (entry.kind === "embedded") {
      if (!entry.entries.some((inner) => hasValue(value, inner))) continue;
      writer.tag(entry.number, WireType.LengthDelimited).fork();
      writeEntries(writer, value, entry.entries, shape);
      writer.join();
      continue;
    }
    const field = value[entry.name];
    if (field === undefined || field === null) continue;
    writeField(writer, entry, field, shape);
  }
}

function hasValue(value: Readonly<Record<string, unknown>>, entry: Entry): boolean {
  if (entry.kind === "field") return value[entry.name] !== undefined && value[entry.name] !== null;
  return entry.entries.some((inner) => hasValue(value, inner));
}

function writeField(writer: BinaryWriter, entry: Extract<Entry, { kind: "field" }>, value: unknown, shape: ProtoShape): void {
  const { field, number } = entry;
  if (field.cardinality === "list") {
    if (!Array.isArray(value)) throw new TypeError(`${shape.message}.${entry.name}: expected a list`);
    for (const element of value) writeOne(writer, number, field, element, shape, entry.name);
    return;
  }
  if (field.cardinality === "map") {
    if (!isPlainObject(value)) throw new TypeError(`${shape.message}.${entry.name}: expected a map`);
    for (const key of Object.keys(value).sort()) {
      const element = value[key];
      writer.tag(number, WireType.LengthDelimited).fork();
      writer.tag(1, WireType.LengthDelimited).string(key);
      if (element !== null && element !== undefined) writeOne(writer, 2, field, element, shape, entry.name);
      writer.join();
    }
    return;
  }
  writeOne(writer, number, field, value, shape, entry.name);
}

function writeOne(writer: BinaryWriter, number: number, field: ProtoField, value: unknown, shape: ProtoShape, name: string): void {
  if (field.shape !== undefined) {
    if (!isPlainObject(value)) throw new TypeError(`${shape.message}.${name}: expected an object`);
    writer.tag(number, WireType.LengthDelimited).fork();
    writeMessage(writer, value, field.shape);
    writer.join();
    return;
  }
  if (field.leaf !== undefined) {
    writeLeaf(writer, number, field.leaf, value, shape, writeMessage);
    return;
  }
  switch (field.scalar) {
    case "int":
      writer.tag(number, WireType.Varint).int64(Math.trunc(Number(value)));
      return;
    case "bool":
      writer.tag(number, WireType.Varint).bool(value === true);
      return;
    case "double":
      writer.tag(number, WireType.Bit64).double(Number(value));
      return;
    case "bytes":
      writer.tag(number, WireType.LengthDelimited).bytes(Buffer.from(String(value), "base64"));
      return;
    default:
      writer.tag(number, WireType.LengthDelimited).string(typeof value === "string" ? value : String(value));
  }
}

/** The bytes of `shape`'s message as a JSON object. Malformed input is a 400 naming the problem. */
export function decodeMessage(bytes: Uint8Array, shape: ProtoShape, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  readInto(bytes, planOf(shape), shape, out, depth);
  return out;
}

function readInto(bytes: Uint8Array, plan: Plan, shape: ProtoShape, out: Record<string, unknown>, depth: number): void {
  if (depth > MAX_DEPTH) throw badRequest(`protobuf: ${shape.message} is nested more than ${MAX_DEPTH} messages deep`);
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [number, wireType] = readTag(reader, shape.message);
    const entry = plan.byNumber.get(number);
    if (entry === undefined) {
      skipField(reader, wireType, shape.message, number);
      continue;
    }
    if (entry.kind === "embedded") {
      expectWireType(wireType, WireType.LengthDelimited, shape.message, number);
      readInto(readBytes(reader, shape.message, number), embeddedPlan(entry), shape, out, depth + 1);
      continue;
    }
    readField(reader, wireType, entry, shape, out, depth);
  }
}

function readField(
  reader: BinaryReader,
  wireType: WireType,
  entry: Extract<Entry, { kind: "field" }>,
  shape: ProtoShape,
  out: Record<string, unknown>,
  depth: number,
): void {
  const { field, name, number } = entry;
  if (field.cardinality === "list") {
    const list = Array.isArray(out[name]) ? (out[name] as unknown[]) : [];
    out[name] = list;
    const numeric = field.scalar === "int" || field.scalar === "bool" || field.scalar === "double";
    if (numeric && field.leaf === undefined && field.shape === undefined && wireType === WireType.LengthDelimited) {
      // A packed list of numbers: one length-delimited run of values.
      const packed = new BinaryReader(readBytes(reader, shape.message, number));
      while (packed.pos < packed.len) list.push(readScalar(packed, field, shape.message, number));
      return;
    }
    const value = readOne(reader, wireType, field, shape, number, depth);
    list.push(value === undefined ? zeroOf(field) : value);
    return;
  }
  if (field.cardinality === "map") {
    expectWireType(wireType, WireType.LengthDelimited, shape.message, number);
    const map = isPlainObject(out[name]) ? out[name] : {};
    out[name] = map;
    const entryReader = new BinaryReader(readBytes(reader, shape.message, number));
    let key = "";
    let value: unknown;
    while (entryReader.pos < entryReader.len) {
      const [entryNumber, entryWireType] = readTag(entryReader, `${shape.message}.${name} entry`);
      if (entryNumber === 1) {
        expectWireType(entryWireType, WireType.LengthDelimited, `${shape.message}.${name} entry`, 1);
        key = decodeUtf8(readBytes(entryReader, shape.message, number), shape.message, number);
      } else if (entryNumber === 2) value = readOne(entryReader, entryWireType, field, shape, number, depth);
      else skipField(entryReader, entryWireType, `${shape.message}.${name} entry`, entryNumber);
    }
    map[key] = value === undefined ? zeroOf(field) : value;
    return;
  }
  const value = readOne(reader, wireType, field, shape, number, depth);
  if (value === undefined) return;
  if (field.leaf === undefined && field.shape === undefined && !field.keepsZero && isZero(value)) return;
  out[name] = value;
}

/** One value: a message, a leaf (undefined when it stands for nothing, as Go's zero time) or a scalar. */
function readOne(reader: BinaryReader, wireType: WireType, field: ProtoField, shape: ProtoShape, number: number, depth: number): unknown {
  if (field.shape !== undefined) {
    expectWireType(wireType, WireType.LengthDelimited, shape.message, number);
    return decodeMessage(readBytes(reader, shape.message, number), field.shape, depth + 1);
  }
  if (field.leaf !== undefined) {
    expectWireType(wireType, WireType.LengthDelimited, shape.message, number);
    return readLeaf(readBytes(reader, shape.message, number), field.leaf, shape, depth + 1, decodeMessage);
  }
  const expected = field.scalar === "int" || field.scalar === "bool" ? WireType.Varint : field.scalar === "double" ? WireType.Bit64 : WireType.LengthDelimited;
  expectWireType(wireType, expected, shape.message, number);
  return readScalar(reader, field, shape.message, number);
}

function readScalar(reader: BinaryReader, field: ProtoField, message: string, number: number): unknown {
  try {
    switch (field.scalar) {
      case "int":
        return Number(reader.int64());
      case "bool":
        return reader.bool();
      case "double":
        return reader.double();
      case "bytes":
        return Buffer.from(readBytes(reader, message, number)).toString("base64");
      default:
        return decodeUtf8(readBytes(reader, message, number), message, number);
    }
  } catch (error) {
    if (isApiError(error)) throw error;
    if (error instanceof TypeError) throw badRequest(`protobuf: field ${number} of ${message} is not valid UTF-8`);
    throw truncated(message, error);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array, message: string, number: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest(`protobuf: field ${number} of ${message} is not valid UTF-8`);
  }
}

function zeroOf(field: ProtoField): unknown {
  if (field.shape !== undefined) return {};
  switch (field.scalar) {
    case "int":
    case "double":
      return 0;
    case "bool":
      return false;
    default:
      return "";
  }
}

function isZero(value: unknown): boolean {
  return value === "" || value === 0 || value === false;
}
