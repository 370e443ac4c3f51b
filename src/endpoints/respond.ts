import { renderYaml } from "../codec/yaml-render.js";
import { ApiError } from "../api/errors.js";
import { isPlainObject, type ApiObject } from "../api/object.js";
import type { ListItem } from "../registry/index.js";
import { renderTable } from "../codec/table.js";
import type { ColumnSpec } from "../codec/tables/index.js";
import type { ProtobufAnswer, Representation } from "../codec/negotiate.js";
import { warningHeaderValues, type ApiResponse, type RequestContext } from "../request/context.js";
import { stringifyJson } from "../util/deep-json.js";

/** A streamed list's chunk size (UTF-16 units, about as many bytes): the measured sweet spot of h2 + TLS writes, each awaited for drain. */
const LIST_CHUNK_CHARS = 64 * 1024;

/**
 * A JSON list's bytes in chunks of about `LIST_CHUNK_CHARS`: `head`, the items' JSON joined by
 * commas, then `]}`; each chunk built as a string and encoded once. Writing each item straight
 * into a chunk's byte buffer instead (one copy per byte where this makes two: V8 flattens the
 * concatenation, then encodes it) was measured at ~45 % less CPU per 500-item page in a
 * micro-measure, and more in the server: with almost nothing left allocated on V8's heap per
 * chunk, young-generation collections came rarely, so the chunks' buffers (memory outside the
 * heap, freed by those collections) piled up until V8's external-memory limit forced full
 * mark-compacts — 20 paged 10k lists: 13 scavenges and 18 mark-compacts against 26 and 2 with
 * string chunks, and ~1.6× the server CPU per paged list (loaded machine). Kept as strings.
 */
export function* listChunks(head: string, items: readonly ListItem[]): Generator<Uint8Array> {
  let buffer = head;
  for (let index = 0; index < items.length; index++) {
    buffer += (index === 0 ? "" : ",") + (items[index]?.json ?? "null");
    if (buffer.length > LIST_CHUNK_CHARS) {
      yield Buffer.from(buffer);
      buffer = "";
    }
  }
  yield Buffer.from(`${buffer}]}`);
}

/**
 * Whether a JSON list is at most one chunk long, and so answered as one string with its length.
 * Decided by size, not by the number of items: a page of 255 ConfigMaps of ~1.4 KB was one
 * ~350 KB string (V8's large-object space, encoded to bytes by the socket write, its length
 * counted twice on the way), which cost the server ~30 % more CPU per page than the same bytes
 * streamed in chunks (40 pages of 255 items: 47–51 ms against 34–39 ms for 256-item pages,
 * loaded machine).
 */
function fitsOneChunk(head: string, items: readonly ListItem[]): boolean {
  let size = head.length;
  for (let index = 0; index < items.length; index++) {
    size += (items[index]?.json.length ?? 4) + 1;
    if (size > LIST_CHUNK_CHARS) return false;
  }
  return true;
}

function notAcceptable(message: string): ApiError {
  return new ApiError(406, "NotAcceptable", message);
}

/** Headers every API response carries: content type and any warnings gathered on the way. */
function headersFor(context: RequestContext, contentType: string): Record<string, string | readonly string[]> {
  const headers: Record<string, string | readonly string[]> = { "content-type": contentType };
  if (context.warnings.length > 0) headers["warning"] = warningHeaderValues(context);
  return headers;
}

/** `json`, when given, is `JSON.stringify(value)` already made (a created object's stored text): sent as is in JSON. */
export function respondJson(
  context: RequestContext,
  status: number,
  value: unknown,
  representation: Representation = { kind: "json" },
  json?: string,
): ApiResponse {
  if (representation.kind === "protobuf") {
    const object = isPlainObject(value) ? value : undefined;
    // A kind without a message (never a built-in one) is answered in JSON, which the client also accepts.
    if (object !== undefined && representation.codec.supports(String(object["apiVersion"]), String(object["kind"])))
      return { status, headers: headersFor(context, representation.mediaType), body: Buffer.from(representation.codec.encode(object)) };
  }
  if (representation.kind === "yaml") return { status, headers: headersFor(context, "application/yaml"), body: renderYaml(value) };
  return { status, headers: headersFor(context, "application/json"), body: json ?? stringifyJson(value) };
}

/** One object in the negotiated representation (a Table of one row when asked). */
export function respondObject(
  context: RequestContext,
  status: number,
  object: ApiObject,
  representation: Representation,
  metaGroup: string,
  columns?: readonly ColumnSpec[],
  /** `JSON.stringify(object)` when the caller has it (the store's stored text of a create). */
  json?: string,
): ApiResponse {
  if (representation.kind === "partial") {
    if (representation.list) throw notAcceptable("PartialObjectMetadataList is only served for lists");
    return respondJson(
      context,
      status,
      {
        kind: "PartialObjectMetadata",
        apiVersion: `${representation.group}/${representation.version}`,
        metadata: object.metadata,
      },
      representation.protobuf === undefined ? undefined : { kind: "protobuf", ...representation.protobuf },
    );
  }
  if (representation.kind === "table") {
    const table = renderTable({
      apiVersion: object.apiVersion,
      kind: object.kind,
      metaGroup,
      representation,
      objects: [object],
      listMeta: { resourceVersion: object.metadata.resourceVersion },
      columns,
    });
    return respondJson(context, status, table);
  }
  return respondJson(context, status, object, representation, json);
}

export interface ListBody {
  readonly kind: string;
  readonly apiVersion: string;
  readonly items: readonly ListItem[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

export function respondList(
  context: RequestContext,
  list: ListBody,
  representation: Representation,
  metaGroup: string,
  columns?: readonly ColumnSpec[],
): ApiResponse {
  if (representation.kind === "partial") {
    if (!representation.list) throw notAcceptable("a list is served as PartialObjectMetadataList, not PartialObjectMetadata");
    const apiVersion = `${representation.group}/${representation.version}`;
    return respondJson(
      context,
      200,
      {
        kind: "PartialObjectMetadataList",
        apiVersion,
        metadata: list.metadata,
        items: list.items.map((item) => ({ kind: "PartialObjectMetadata", apiVersion, metadata: item.decode().metadata })),
      },
      representation.protobuf === undefined ? undefined : { kind: "protobuf", ...representation.protobuf },
    );
  }
  if (representation.kind === "table") {
    return respondJson(
      context,
      200,
      renderTable({
        apiVersion: list.apiVersion,
        kind: list.kind.replace(/List$/, ""),
        metaGroup,
        representation,
        objects: list.items.map((item) => item.decode()),
        listMeta: list.metadata,
        columns,
      }),
    );
  }
  if (representation.kind === "yaml") return respondJson(context, 200, { ...list, items: list.items.map((item) => item.decode()) }, representation);
  if (representation.kind === "protobuf") return respondProtobufList(context, list, representation);
  // Items are serialised one by one into chunks (listChunks), each encoded to bytes once where it is
  // made: the layers a chunk passes (the response-size metric, the socket) take its length without
  // scanning a string again.
  const head = `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`;
  const items = list.items;
  if (fitsOneChunk(head, items)) {
    return { status: 200, headers: headersFor(context, "application/json"), body: `${head}${items.map((item) => item.json).join(",")}]}` };
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* listChunks(head, items);
  }
  return { status: 200, headers: headersFor(context, "application/json"), body: chunks() };
}

/**
 * A list in protobuf: each item's message is made once per cached object (shared by every
 * protobuf list and watch of it) and written as its own chunk after the envelope's head.
 */
function respondProtobufList(context: RequestContext, list: ListBody, protobuf: ProtobufAnswer): ApiResponse {
  const chunks = protobuf.codec.encodeList(list.apiVersion, list.kind, list.metadata, list.items);
  const headers = headersFor(context, protobuf.mediaType);
  if (list.items.length < 256) return { status: 200, headers, body: Buffer.concat(chunks) };
  async function* body(): AsyncGenerator<Uint8Array> {
    let pending: Uint8Array[] = [];
    let size = 0;
    for (const chunk of chunks) {
      pending.push(chunk);
      size += chunk.length;
      if (size > 64 * 1024) {
        yield Buffer.concat(pending, size);
        pending = [];
        size = 0;
      }
    }
    if (pending.length > 0) yield Buffer.concat(pending, size);
  }
  return { status: 200, headers, body: body() };
}
