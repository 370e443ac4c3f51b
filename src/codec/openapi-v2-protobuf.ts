import { isPlainObject } from "../api/object.js";

/**
 * The Swagger 2.0 document in the protobuf form clients ask `/openapi/v2` for first (gnostic's
 * `openapi.v2.Document`, `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`). Encodes
 * what our documents use: info, paths with operations, query/path/body parameters and responses,
 * definitions, and schemas (type, format, description, default, bounds, required, enum,
 * properties, additionalProperties, items, allOf, $ref) with vendor extensions, whose values are
 * carried as YAML text (JSON, which is YAML) as gnostic does.
 */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/** The same form's valid media type: what kube labels the answer with, and newer clients ask for. */
export const OPENAPI_V2_PROTOBUF_RESPONSE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/** A protobuf message under construction: fields appended in the order written. */
class Message {
  private readonly chunks: Uint8Array[] = [];

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = value;
    while (rest > 0x7f) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
    this.chunks.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, value: string | undefined): this {
    if (value === undefined || value === "") return this;
    return this.bytes(field, Buffer.from(value, "utf8"));
  }

  strings(field: number, values: readonly string[] | undefined): this {
    for (const value of values ?? []) this.bytes(field, Buffer.from(value, "utf8"));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (value !== true) return this;
    this.tag(field, 0);
    this.varint(1);
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value === undefined) return this;
    this.tag(field, 1);
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleLE(value);
    this.chunks.push(bytes);
    return this;
  }

  message(field: number, message: Message | undefined): this {
    return message === undefined ? this : this.bytes(field, message.finish());
  }

  messages(field: number, messages: readonly Message[]): this {
    for (const message of messages) this.bytes(field, message.finish());
    return this;
  }

  private bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.chunks.push(value);
    return this;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}

type Json = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const stringList = (value: unknown): string[] => list(value).filter((item): item is string => typeof item === "string");
const record = (value: unknown): Json => (isPlainObject(value) ? value : {});

/** `Any`: a value as YAML text (field 2). */
function anyMessage(value: unknown): Message {
  return new Message().string(2, JSON.stringify(value));
}

/** `NamedAny` entries for the `x-…` keys of an object. */
function extensions(object: Json): Message[] {
  return Object.entries(object)
    .filter(([key]) => key.startsWith("x-"))
    .map(([key, value]) => new Message().string(1, key).message(2, anyMessage(value)));
}

function schema(value: unknown): Message {
  const node = record(value);
  const message = new Message()
    .string(1, text(node["$ref"]))
    .string(2, text(node["format"]))
    .string(4, text(node["description"]))
    .message(5, node["default"] === undefined ? undefined : anyMessage(node["default"]))
    .double(7, number(node["maximum"]))
    .double(9, number(node["minimum"]))
    .strings(19, stringList(node["required"]))
    .messages(20, list(node["enum"]).map(anyMessage));
  const additional = node["additionalProperties"];
  if (isPlainObject(additional)) message.message(21, new Message().message(1, schema(additional)));
  else if (typeof additional === "boolean") message.message(21, new Message().bool(2, additional));
  if (typeof node["type"] === "string") message.message(22, new Message().strings(1, [node["type"]]));
  if (node["items"] !== undefined) message.message(23, new Message().messages(1, [schema(node["items"])]));
  message.messages(24, list(node["allOf"]).map(schema));
  if (isPlainObject(node["properties"])) {
    message.message(
      25,
      new Message().messages(
        1,
        Object.entries(node["properties"]).map(([name, property]) => new Message().string(1, name).message(2, schema(property))),
      ),
    );
  }
  return message.messages(31, extensions(node));
}

function parameter(value: unknown): Message {
  const node = record(value);
  const where = text(node["in"]);
  if (where === "body") {
    const body = new Message()
      .string(1, text(node["description"]))
      .string(2, text(node["name"]))
      .string(3, where)
      .bool(4, node["required"] === true)
      .message(5, schema(node["schema"]));
    return new Message().message(1, new Message().message(1, body));
  }
  // Query (3) and path (4) parameters share their first fields; `type` is 6 for query, 5 for path.
  const query = where === "query";
  const sub = new Message()
    .bool(1, node["required"] === true)
    .string(2, where)
    .string(3, text(node["description"]))
    .string(4, text(node["name"]))
    .string(query ? 6 : 5, text(node["type"]));
  if (node["uniqueItems"] === true) sub.bool(query ? 20 : 19, true);
  return new Message().message(1, new Message().message(2, new Message().message(query ? 3 : 4, sub)));
}

function operation(value: unknown): Message {
  const node = record(value);
  const responses = Object.entries(record(node["responses"])).map(([code, response]) => {
    const body = record(response);
    const described = new Message().string(1, text(body["description"]));
    if (body["schema"] !== undefined) described.message(2, new Message().message(1, schema(body["schema"])));
    return new Message().string(1, code).message(2, new Message().message(1, described));
  });
  return new Message()
    .strings(1, stringList(node["tags"]))
    .string(3, text(node["description"]))
    .string(5, text(node["operationId"]))
    .strings(6, stringList(node["produces"]))
    .strings(7, stringList(node["consumes"]))
    .messages(8, list(node["parameters"]).map(parameter))
    .message(9, new Message().messages(1, responses))
    .messages(13, extensions(node));
}

const METHODS: readonly (readonly [string, number])[] = [
  ["get", 2],
  ["put", 3],
  ["post", 4],
  ["delete", 5],
  ["options", 6],
  ["head", 7],
  ["patch", 8],
];

function pathItem(value: unknown): Message {
  const node = record(value);
  const message = new Message();
  for (const [method, field] of METHODS) if (node[method] !== undefined) message.message(field, operation(node[method]));
  return message.messages(9, list(node["parameters"]).map(parameter)).messages(10, extensions(node));
}

/** Encodes a Swagger 2.0 document (as `/openapi/v2` serves it in JSON) as gnostic's protobuf. */
export function encodeOpenApiV2(document: Json): Uint8Array {
  const info = record(document["info"]);
  const paths = Object.entries(record(document["paths"])).map(([path, item]) => new Message().string(1, path).message(2, pathItem(item)));
  const definitions = Object.entries(record(document["definitions"])).map(([name, definition]) => new Message().string(1, name).message(2, schema(definition)));
  return new Message()
    .string(1, text(document["swagger"]))
    .message(2, new Message().string(1, text(info["title"])).string(2, text(info["version"])))
    .message(8, new Message().messages(2, paths))
    .message(9, new Message().messages(1, definitions))
    .messages(16, extensions(document))
    .finish();
}
