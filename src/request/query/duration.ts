import { parseDuration } from "../../util/duration.js";
import { queryParameterError } from "./query-error.js";

/**
 * The request's `timeout` parameter (a Go duration such as `30s`) in milliseconds; undefined when
 * absent or empty. Anything Go's `time.ParseDuration` rejects is 400 with kube's wording.
 */
export function queryTimeout(query: URLSearchParams): number | undefined {
  const text = query.get("timeout");
  if (text === null || text === "") return undefined;
  const milliseconds = parseDuration(text);
  if (milliseconds === undefined)
    throw queryParameterError("timeout", `invalid timeout specified in the request URL - time: invalid duration ${JSON.stringify(text)}`);
  return milliseconds;
}
