import { isPlainObject } from "../../api/object.js";
import { humanDuration } from "../../util/human-duration.js";

// Readers that tolerate any shape: a Table is rendered from whatever the object holds.

export function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** The value when it is an object; undefined for anything else (absent, null, a scalar). */
export function present(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The records of a list, skipping entries that are not objects. */
export function records(value: unknown): Record<string, unknown>[] {
  return list(value).filter(isPlainObject);
}

/** The value at a dotted path (`spec.template.spec`), or undefined. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) current = isPlainObject(current) ? current[part] : undefined;
  return current;
}

export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A quantity or int-or-string as written (`1Gi`, `50%`, `3`); "" when absent. */
export function quantity(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

/** Time since an RFC 3339 timestamp, `<unknown>` when there is none. */
export function age(timestamp: unknown, now: number): string {
  const time = typeof timestamp === "string" && timestamp !== "" ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(time) ? "<unknown>" : humanDuration(now - time);
}

/** A label map as `a=1,b=2` (keys sorted), `<none>` when empty. */
export function formatLabels(value: unknown): string {
  const entries = Object.entries(record(value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? "<none>" : entries.map(([key, label]) => `${key}=${String(label)}`).join(",");
}

/**
 * A label selector in selector syntax (`app=web,tier in (a,b),!legacy`), requirements sorted by key;
 * "" for an empty or missing selector, undefined for an operator no selector can hold.
 */
export function selectorString(value: unknown): string | undefined {
  const selector = record(value);
  const requirements: [string, string][] = Object.entries(record(selector["matchLabels"])).map(([key, label]) => [key, `${key}=${String(label)}`]);
  for (const expression of records(selector["matchExpressions"])) {
    const key = str(expression["key"]);
    const values = list(expression["values"]).map(String).sort();
    switch (expression["operator"]) {
      case "In":
        requirements.push([key, `${key} in (${values.join(",")})`]);
        break;
      case "NotIn":
        requirements.push([key, `${key} notin (${values.join(",")})`]);
        break;
      case "Exists":
        requirements.push([key, key]);
        break;
      case "DoesNotExist":
        requirements.push([key, `!${key}`]);
        break;
      default:
        return undefined;
    }
  }
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, requirement]) => requirement)
    .join(",");
}

/** A label selector for display: `<none>` when it selects by nothing, `<error>` when malformed. */
export function formatSelector(value: unknown): string {
  const text = selectorString(value);
  return text === undefined ? "<error>" : text === "" ? "<none>" : text;
}

/** A pod template's container names and images, each comma-joined in container order. */
export function containerCells(podSpec: unknown): { readonly names: string; readonly images: string } {
  const containers = records(record(podSpec)["containers"]);
  return { names: containers.map((container) => str(container["name"])).join(","), images: containers.map((container) => str(container["image"])).join(",") };
}

/** At most `max` items joined by ",", then ` + N more...`; `empty` when there are none. */
export function firstOf(items: readonly string[], max: number, empty: string): string {
  if (items.length === 0) return empty;
  const shown = items.slice(0, max).join(",");
  return items.length > max ? `${shown} + ${items.length - max} more...` : shown;
}

/** `True`/`False` as kube's printers spell an optional flag, `<unset>` when absent. */
export function optionalFlag(value: unknown): string {
  return typeof value === "boolean" ? (value ? "True" : "False") : "<unset>";
}

/** Access modes in their short spellings, in kube's fixed order (`RWO,ROX,RWX,RWOP`). */
export function accessModes(value: unknown): string {
  const modes = new Set(list(value));
  const short: readonly (readonly [string, string])[] = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return short
    .filter(([mode]) => modes.has(mode))
    .map(([, abbreviation]) => abbreviation)
    .join(",");
}

/** The first condition of a type, if any. */
export function condition(conditions: unknown, type: string): Record<string, unknown> | undefined {
  return records(conditions).find((entry) => entry["type"] === type);
}

/** Whether the first condition of a type has status True. */
export function conditionTrue(conditions: unknown, type: string): boolean {
  return condition(conditions, type)?.["status"] === "True";
}
