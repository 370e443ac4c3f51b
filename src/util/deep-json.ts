/**
 * Stack-safe JSON helpers. kube accepts request bodies nested up to 10,000 levels; V8's own
 * recursive walkers (JSON.stringify, structuredClone) run out of Node's default stack a few
 * thousand levels down. Each helper here takes the native fast path and, only when that throws
 * RangeError (the stack ran out), redoes the work with an explicit stack, so a shallow value costs
 * what the native call costs and a deep one still succeeds. Values are plain JSON (objects,
 * arrays, strings, numbers, booleans, null).
 */

/** True for the error V8 throws when the stack runs out. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** `JSON.stringify(value)` for values of every depth (no replacer, no indentation). */
export function stringifyJson(value: unknown): string {
  if (typeof value === "object" && value !== null && KNOWN_DEEP.has(value)) return stringifyIteratively(value);
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    if (typeof value === "object" && value !== null) KNOWN_DEEP.add(value);
    return stringifyIteratively(value);
  }
}

/**
 * Values a native walk has already failed on: the next walk of the same value (an object is
 * encoded for storage, the watch cache and the response) goes straight to the explicit stack.
 * A failed native attempt costs tens of milliseconds at 10,000 levels.
 */
const KNOWN_DEEP = new WeakSet<object>();

/**
 * Thrown by recursive fast paths that carry a depth budget (`DEPTH_BUDGET`) when a value nests
 * past it: far cheaper than running into the stack, and the caller redoes the work iteratively.
 */
export class DepthBudgetExceeded extends Error {
  constructor() {
    super("nested past the recursion budget");
  }
}

/** How deep recursive fast paths may go before handing over to the explicit-stack versions. */
export const DEPTH_BUDGET = 500;

/**
 * JSON with object keys written in sorted (code unit) order at every depth, without recursion:
 * the slow path of writers that sort keys (Go's encoding of maps, canonical forms).
 */
export function stringifySorted(value: unknown): string {
  return stringifyIteratively(value, true);
}

/** A deep copy of a JSON value (`structuredClone` for values of every depth). */
export function cloneJson<T>(value: T): T {
  if (typeof value === "object" && value !== null && KNOWN_DEEP.has(value)) return cloneIteratively(value) as T;
  try {
    return structuredClone(value);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    if (typeof value === "object" && value !== null) KNOWN_DEEP.add(value);
    return cloneIteratively(value) as T;
  }
}

/**
 * Whether `JSON.parse(JSON.stringify(value))` gives back a value equal to `value` key for key, in
 * the same key order: only null, booleans, finite numbers, strings, dense arrays and plain
 * objects, no undefined member, no `__proto__` key. False past `DEPTH_BUDGET` levels (the caller
 * then takes the slower path that needs no such promise).
 */
export function isExactJson(value: unknown): boolean {
  return exactJson(value, DEPTH_BUDGET);
}

function exactJson(value: unknown, budget: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (budget === 0) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value) || !exactJson(value[index], budget - 1)) return false;
    }
    return true;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key === "__proto__" || !exactJson(record[key], budget - 1)) return false;
  }
  return true;
}

/** Deep equality of JSON values, object key order ignored, for values of every depth (explicit stack). */
export function equalJson(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [left, right] = pending.pop() as [unknown, unknown];
    if (left === right) continue;
    if (!isContainer(left) || !isContainer(right)) return false;
    if (Array.isArray(left) || Array.isArray(right)) {
      if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
      for (let index = 0; index < left.length; index++) pending.push([left[index], right[index]]);
      continue;
    }
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    for (const key of keys) {
      if (!(key in right)) return false;
      pending.push([left[key], right[key]]);
    }
  }
  return true;
}

/**
 * A copy of a JSON value without the object keys whose value is null, for values of every depth
 * (explicit stack); array items that are null are kept.
 */
export function withoutNullKeys(value: unknown): unknown {
  return cloneIteratively(value, true);
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

/** A leaf as JSON.stringify writes it; undefined (and functions) for a value it leaves out. */
function leafJson(value: unknown): string | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  return JSON.stringify(value);
}

/**
 * The writer behind `stringifyJson`: a frame per open container holds its keys and how far it got;
 * `toJSON` (Dates) is honoured as JSON.stringify honours it. Output equals JSON.stringify's.
 */
function stringifyIteratively(root: unknown, sortKeys = false): string {
  const parts: string[] = [];
  interface Frame {
    readonly container: Container;
    readonly keys: readonly string[] | undefined;
    index: number;
    wrote: boolean;
  }
  const open = (value: Container): Frame => {
    const keys = Array.isArray(value) ? undefined : sortKeys ? Object.keys(value).sort() : Object.keys(value);
    parts.push(keys === undefined ? "[" : "{");
    return { container: value, keys, index: 0, wrote: false };
  };
  const resolve = (value: unknown): unknown => {
    const withToJson = value as { toJSON?: () => unknown } | null;
    return isContainer(value) && typeof withToJson?.toJSON === "function" ? withToJson.toJSON() : value;
  };
  const top = resolve(root);
  if (!isContainer(top)) return leafJson(top) as string;
  const stack: Frame[] = [open(top)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const length = frame.keys === undefined ? (frame.container as unknown[]).length : frame.keys.length;
    if (frame.index >= length) {
      parts.push(frame.keys === undefined ? "]" : "}");
      stack.pop();
      continue;
    }
    const index = frame.index++;
    const key = frame.keys?.[index];
    const value = resolve(key === undefined ? (frame.container as unknown[])[index] : (frame.container as Record<string, unknown>)[key]);
    if (key !== undefined && !isContainer(value) && leafJson(value) === undefined) continue;
    if (frame.wrote) parts.push(",");
    frame.wrote = true;
    if (key !== undefined) parts.push(JSON.stringify(key), ":");
    if (isContainer(value)) stack.push(open(value));
    else parts.push(leafJson(value) ?? "null");
  }
  return parts.join("");
}

/** Arrays and plain objects are copied; other objects (Dates, byte arrays) are shared, as leaves. */
function isPlainContainer(value: unknown): value is Container {
  if (!isContainer(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

function cloneIteratively(root: unknown, dropNullKeys = false): unknown {
  if (!isPlainContainer(root)) return root;
  const copyOf = (value: Container): Container => (Array.isArray(value) ? new Array<unknown>(value.length) : {});
  const top = copyOf(root);
  const pending: [Container, Container][] = [[root, top]];
  while (pending.length > 0) {
    const [source, target] = pending.pop() as [Container, Container];
    const isArray = Array.isArray(source);
    for (const key of Object.keys(source)) {
      const value = (source as Record<string, unknown>)[key];
      if (dropNullKeys && value === null && !isArray) continue;
      if (isPlainContainer(value)) {
        const copy = copyOf(value);
        (target as Record<string, unknown>)[key] = copy;
        pending.push([value, copy]);
      } else (target as Record<string, unknown>)[key] = value;
    }
  }
  return top;
}

/** Freezes `value` and everything below it (shared read-only values: a mutation throws in strict code), and answers it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
