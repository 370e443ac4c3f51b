import { queryParameterError } from "./query-error.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * An integer parameter as kube reads one (Go's `strconv.ParseInt(text, 10, 64)`): an optional sign
 * and decimal digits, nothing else — the empty value is an error too. Errors are 400 naming the
 * parameter with Go's wording. Values past ±2^53 lose precision (none of kube's integer
 * parameters means anything there).
 */
export function parseQueryInteger(name: string, text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw queryParameterError(name, `invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX)
    throw queryParameterError(name, `invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return Number(value);
}

/** The first value of parameter `name` as an integer; undefined when the parameter is absent. */
export function queryInteger(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  return text === null ? undefined : parseQueryInteger(name, text);
}
