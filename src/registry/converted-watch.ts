import type { ApiObject } from "../api/object.js";
import type { PushBody } from "../request/push-body.js";
import type { ObjectEvent, ObjectEventType } from "./watch.js";
import { stringifyJson } from "../util/deep-json.js";

/** One line of the cached watch as opened for conversion: an event in the stored version's JSON. */
interface StoredLine {
  readonly type: ObjectEventType;
  readonly object: ApiObject | Record<string, unknown>;
}

/** The JSON line the cache writes for each event of a watch that converts afterwards. */
export function storedLine(type: string, object: string | Record<string, unknown>): string {
  return `{"type":"${type}","object":${typeof object === "string" ? object : stringifyJson(object)}}\n`;
}

/**
 * The events of a watch served from the watch cache for a resource whose versions convert through
 * a webhook: the cache hands this watcher its events in the stored version (JSON lines, written
 * with `storedLine`), and each delivered batch is converted in one round trip on its way out, as
 * kube's watch cache converts per watcher. BOOKMARK and ERROR events pass as they are. A failed
 * conversion throws (the caller ends the watch with an ERROR event, as for a list).
 */
export async function* convertedEvents(stream: PushBody, convert: (objects: readonly ApiObject[]) => Promise<ApiObject[]>): AsyncGenerator<ObjectEvent> {
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    const text = partial + decoder.decode(chunk, { stream: true });
    const end = text.lastIndexOf("\n");
    partial = text.slice(end + 1);
    if (end < 0) continue;
    const lines = text
      .slice(0, end)
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as StoredLine);
    const objects = lines.filter((line) => isObjectEvent(line.type)).map((line) => line.object as ApiObject);
    const converted = objects.length === 0 ? [] : await convert(objects);
    let next = 0;
    for (const line of lines) {
      if (!isObjectEvent(line.type)) {
        yield line;
        continue;
      }
      const object = converted[next++];
      if (object !== undefined) yield { type: line.type, object };
    }
  }
}

function isObjectEvent(type: ObjectEventType): boolean {
  return type === "ADDED" || type === "MODIFIED" || type === "DELETED";
}
