/**
 * A boolean as kube's query conversion reads one: `0` and `false` (any letter case) are false,
 * every other value is true — `True`, `yes`, `maybe`, and the empty value (`?watch=`, `?watch`)
 * included. It never fails: kube 1.28 watches on `?watch=maybe`.
 */
export function parseQueryBoolean(text: string): boolean {
  return text !== "0" && text.toLowerCase() !== "false";
}

/** The first value of parameter `name` as a boolean; undefined when the parameter is absent. */
export function queryBoolean(query: URLSearchParams, name: string): boolean | undefined {
  const text = query.get(name);
  return text === null ? undefined : parseQueryBoolean(text);
}
