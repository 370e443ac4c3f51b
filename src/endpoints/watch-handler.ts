import type { ApiObject } from "../api/object.js";
import type { Profile } from "../api/profile.js";
import { metaGroup } from "../api/profile.js";
import type { Representation } from "../codec/negotiate.js";
import { renderTable } from "../codec/table.js";
import { apiVersionOf, bookmarkEvent, errorEvent, parseListOptions, watchStore, type ObjectEvent, type Store } from "../registry/index.js";
import { isPushBody, type PushBody } from "../request/push-body.js";
import { ApiError } from "../api/errors.js";
import { isPlainObject } from "../api/object.js";
import type { ProtobufAnswer } from "../codec/negotiate.js";
import { withoutManagedFields } from "./field-manager-options.js";
import { warningHeaderValues, type ApiResponse, type RequestContext } from "../request/context.js";
import { stringifyJson } from "../util/deep-json.js";

export interface WatchServeOptions {
  readonly store: Store;
  readonly namespace: string;
  readonly name: string;
  readonly representation: Representation;
  readonly profile: Profile;
  readonly bookmarkIntervalMs?: number;
  /** `--min-request-timeout` in seconds (default 1800). */
  readonly minRequestTimeoutSeconds?: number;
  /** Leave `metadata.managedFields` out of the events' objects (`omitManagedFields`). */
  readonly omitManagedFields?: boolean;
}

/** Watch length without timeoutSeconds: spread over [min, 2·min) as kube does, so reconnects don't bunch. */
function defaultTimeoutMs(minSeconds: number): number {
  return (minSeconds + Math.random() * minSeconds) * 1000;
}

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How long a watch lasts, as kube decides it: `timeoutSeconds` unset or 0 means the server's
 * default; a negative one has already expired (the watch ends at once).
 */
function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number): number {
  if (timeoutSeconds === undefined || timeoutSeconds === 0) return defaultTimeoutMs(minRequestTimeoutSeconds);
  return Math.min(Math.max(0, timeoutSeconds * 1000), MAX_TIMER_MS);
}

/**
 * A watch response: one JSON document per line, each written as it happens. The stream ends at
 * timeoutSeconds, when the client goes away, or when the server stops.
 */
export async function serveWatch(context: RequestContext, options: WatchServeOptions): Promise<ApiResponse> {
  const meta = metaGroup(options.profile);
  const listOptions = parseListOptions(context.request.query, meta, "watch");
  // An unsupported field label is a 400 before the stream starts, not an ERROR event inside it.
  options.store.checkFieldSelector(listOptions);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  context.request.signal.addEventListener("abort", onAbort, { once: true });
  const timeoutMs = watchTimeoutMs(listOptions.timeoutSeconds, options.minRequestTimeoutSeconds ?? 1800);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  // A watch never keeps the process alive by itself (a client may go away before reading the body).
  timer.unref();
  const representation = options.representation;
  const omit = options.omitManagedFields === true;
  // Protobuf streams are kube's length-prefixed WatchEvent frames; JSON streams one document a line.
  const protobuf = representation.kind === "protobuf" ? representation : representation.kind === "partial" ? representation.protobuf : undefined;
  const viewOf = (event: ApiObject): unknown => {
    const object = omit ? withoutManagedFields(event) : event;
    if (representation.kind === "partial")
      return { kind: "PartialObjectMetadata", apiVersion: `${representation.group}/${representation.version}`, metadata: object.metadata };
    if (representation.kind !== "table") return object;
    return renderTable({
      apiVersion: object.apiVersion,
      kind: object.kind,
      metaGroup: meta,
      representation,
      objects: [object],
      listMeta: {},
      columns: store.definition.columns,
    });
  };
  const line = (type: string, object: unknown): string | Uint8Array =>
    protobuf !== undefined && isPlainObject(object) ? protobuf.codec.frameOf(type, object) : `${stringifyJson({ type, object })}\n`;
  const tableLine = (type: string, event: ApiObject): string | Uint8Array => line(type, viewOf(event));
  const encode = (event: ObjectEvent): string | Uint8Array =>
    event.type === "ERROR" || event.type === "BOOKMARK" ? line(event.type, event.object) : tableLine(event.type, event.object as ApiObject);
  const store = options.store;
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  const initialEventsEndAnnotation = `${options.profile.apiDomain}/initial-events-end`;
  let chunks: AsyncIterable<string | Uint8Array> | PushBody;
  const release = (): void => {
    clearTimeout(timer);
    controller.abort();
    context.request.signal.removeEventListener("abort", onAbort);
  };
  const fromCache = store.watchFromCache(options.namespace, options.name, {
    options: listOptions,
    signal: controller.signal,
    deadline: deadline.signal,
    bookmarkIntervalMs,
    encode:
      representation.kind === "table" || representation.kind === "partial" || store.definition.storedAs !== undefined || omit
        ? (type, json) => tableLine(type, store.fromStorage(JSON.parse(json) as ApiObject))
        : protobuf !== undefined
          ? sharedProtobuf(protobuf, apiVersionOf(store.definition), store.definition.kind)
          : undefined,
    bookmark: (revision, initialEventsEnd) => encode(bookmarkEvent(store, revision, initialEventsEnd ? { [initialEventsEndAnnotation]: "true" } : undefined)),
    error: (error) => encode(errorEvent(error)),
  });
  // Webhook-converted resources: from the cache too, converted per watcher on the way out.
  const converted =
    fromCache === undefined
      ? store.watchConvertedFromCache(options.namespace, options.name, {
          options: listOptions,
          signal: controller.signal,
          deadline: deadline.signal,
          bookmarkIntervalMs,
          initialEventsEndAnnotation,
        })
      : undefined;
  if (fromCache !== undefined) {
    chunks = await fromCache.catch((error: unknown) => {
      release();
      throw error;
    });
  } else if (converted !== undefined) {
    const events = await converted.catch((error: unknown) => {
      release();
      throw error;
    });
    chunks = (async function* () {
      for await (const event of events) yield encode(event);
    })();
  } else {
    const events = watchStore(store, {
      namespace: options.namespace,
      name: options.name,
      options: listOptions,
      signal: controller.signal,
      deadline: deadline.signal,
      bookmarkIntervalMs,
      initialEventsEndAnnotation,
    });
    chunks = (async function* () {
      for await (const event of events) yield encode(event);
    })();
  }
  // Headers go out at once; a failure after that (410 for an expired version) is an ERROR event.
  async function* body(): AsyncGenerator<string | Uint8Array> {
    try {
      yield* chunks;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      yield encode(errorEvent(error));
    } finally {
      release();
    }
  }
  // From the cache: the listener can push the stream into the response (see chunk-sink.ts).
  const cachedStream = isPushBody(chunks) ? chunks : undefined;
  const pushed: PushBody | undefined =
    cachedStream === undefined
      ? undefined
      : {
          pipeTo: (sink) => cachedStream.pipeTo(sink).finally(release),
          [Symbol.asyncIterator]: async function* (): AsyncGenerator<Uint8Array> {
            try {
              yield* cachedStream;
            } finally {
              release();
            }
          },
        };
  return {
    status: 200,
    headers: {
      "content-type": protobuf === undefined ? "application/json" : `${protobuf.mediaType};stream=watch`,
      "transfer-encoding": "chunked",
      "cache-control": "no-cache, private",
      ...(context.warnings.length > 0 ? { warning: warningHeaderValues(context) } : {}),
    },
    body: pushed ?? body(),
    longRunning: true,
  };
}

/**
 * Protobuf frames shared by every protobuf watcher of a resource: each event is framed once per
 * view, and each cached object's message is made once (the codec remembers it by the cache entry).
 */
function sharedProtobuf(
  protobuf: ProtobufAnswer,
  apiVersion: string,
  kind: string,
): { readonly key: string; readonly encode: (type: string, json: string, source?: object) => Uint8Array } {
  return {
    key: "protobuf",
    encode: (type, json, source) => protobuf.codec.frame(type, apiVersion, kind, { json, ...(source === undefined ? {} : { source }) }),
  };
}
