import { isPlainObject } from "../../../api/object.js";

/**
 * Readers and field paths for the warning rules. Paths are written as kube's field paths print:
 * children joined with `.`, list indexes as `[0]`, map keys as `[key]`; `under("", …)` is a root path.
 */
export function under(prefix: string, path: string): string {
  return prefix === "" ? path : `${prefix}.${path}`;
}

// The field readers the validation rules use, under the names the warning rules read them by.
export { listAt as listOf, recordAt as recordOf, stringAt as stringOf } from "../../../api/schema/rules/values.js";

export function numberOf(value: unknown, name: string): number | undefined {
  if (!isPlainObject(value)) return undefined;
  const field = value[name];
  return typeof field === "number" ? field : undefined;
}

/** Whether a field is present at all (kube's pointer fields: set, even to an empty object). */
export function has(value: unknown, name: string): boolean {
  return isPlainObject(value) && value[name] !== undefined && value[name] !== null;
}

/** Go's `%q` of a string: a double-quoted literal with `"` and `\` escaped (what kube's messages print). */
export function quoted(text: string): string {
  return JSON.stringify(text);
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What keeps a name from being a DNS label, every problem as kube lists them (its `IsDNS1123Label`). */
export function dnsLabelProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 63) problems.push("must be no more than 63 characters");
  if (!DNS1123_LABEL.test(name)) {
    problems.push(
      DNS1123_SUBDOMAIN.test(name)
        ? "must not contain dots"
        : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems;
}

/** Go's `%v` of a string list: `[a b]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}
