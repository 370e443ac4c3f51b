import type { Filter } from "../../request/context.js";
import { queryBoolean } from "../../request/query/boolean.js";

/**
 * `?pretty=true`: a JSON answer (objects, lists, Status) is re-indented with two spaces as kube
 * writes it. Streams (watches) and other media types pass through; a list served in chunks is
 * gathered first, which `pretty` asks for anyway.
 */
export function prettyFilter(): Filter {
  return (next) => async (context) => {
    const response = await next(context);
    if (queryBoolean(context.request.query, "pretty") !== true || response.longRunning === true) return response;
    const type = response.headers["content-type"];
    if (typeof type !== "string" || !type.startsWith("application/json")) return response;
    let text: string;
    if (typeof response.body === "string") text = response.body;
    else if (response.body instanceof Uint8Array) text = Buffer.from(response.body).toString("utf8");
    else {
      text = "";
      for await (const chunk of response.body) text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    }
    try {
      return { ...response, body: `${JSON.stringify(JSON.parse(text), null, 2)}\n` };
    } catch {
      return { ...response, body: text };
    }
  };
}
