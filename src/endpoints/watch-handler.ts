import type { ApiObject } from "../api/object.js";
import type { Profile } from "../api/profile.js";
import { metaGroup } from "../api/profile.js";
import type { Representation } from "../codec/negotiate.js";
import { renderTable } from "../codec/table.js";
import { parseListOptions } from "../registry/list-options.js";
import type { Store } from "../registry/store.js";
import { errorEvent, watchStore, type ObjectEvent } from "../registry/watch.js";
import { ApiError } from "../api/errors.js";
import type { ApiResponse, RequestContext } from "../request/context.js";

export interface WatchServeOptions {
  readonly store: Store;
  readonly namespace: string;
  readonly name: string;
  readonly representation: Representation;
  readonly profile: Profile;
  readonly bookmarkIntervalMs?: number;
}

/** Default watch length when the client gives no timeoutSeconds: 30–60 minutes, as kube spreads them. */
function defaultTimeoutMs(): number {
  return (1800 + Math.floor(Math.random() * 1800)) * 1000;
}

/**
 * A watch response: one JSON document per line, each written as it happens. The stream ends at
 * timeoutSeconds, when the client goes away, or when the server stops.
 */
export async function serveWatch(context: RequestContext, options: WatchServeOptions): Promise<ApiResponse> {
  const meta = metaGroup(options.profile);
  const listOptions = parseListOptions(context.request.query, meta);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  context.request.signal.addEventListener("abort", onAbort, { once: true });
  const timeoutMs = listOptions.timeoutSeconds !== undefined ? listOptions.timeoutSeconds * 1000 : defaultTimeoutMs();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const events = watchStore(options.store, {
    namespace: options.namespace,
    name: options.name,
    options: listOptions,
    signal: controller.signal,
    deadline: deadline.signal,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    initialEventsEndAnnotation: `${options.profile.apiDomain}/initial-events-end`,
  });
  const representation = options.representation;
  const encode = (event: ObjectEvent): string => {
    if (representation.kind === "table" && event.type !== "ERROR" && event.type !== "BOOKMARK") {
      const table = renderTable({ metaGroup: meta, representation, objects: [event.object as ApiObject], listMeta: {} });
      return `${JSON.stringify({ type: event.type, object: table })}\n`;
    }
    return `${JSON.stringify(event)}\n`;
  };
  // Headers go out at once; a failure after that (410 for an expired version) is an ERROR event.
  async function* body(): AsyncGenerator<string> {
    try {
      for await (const event of events) yield encode(event);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      yield encode(errorEvent(error));
    } finally {
      clearTimeout(timer);
      controller.abort();
      context.request.signal.removeEventListener("abort", onAbort);
    }
  }
  return {
    status: 200,
    headers: { "content-type": "application/json", "transfer-encoding": "chunked", "cache-control": "no-cache, private" },
    body: body(),
    longRunning: true,
  };
}
