import { ApiError, badRequest } from "../../api/errors.js";
import { isPlainObject } from "../../api/object.js";
import { cloneJson, equalJson } from "../../util/deep-json.js";

/** kube's limit on the operations of one JSON patch (413 past it). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * RFC 6902 JSON patch as kube-apiserver applies it (its JSON-patch library, v4): the same
 * operations succeed and fail. Where that library is lenient, so is this: `replace` of a
 * missing object key adds it, a missing `value` is null, `copy` from a missing key copies null,
 * negative array indices count from the end, and a path is split on `/` with its first segment
 * ignored. Any failure is kube's bare 422 (the library's own text is not sent), a body that is
 * not a list of operation objects kube's 400 with Go's decoding text. Walks iteratively; values
 * are compared and copied with the stack-safe helpers (bodies may nest 10,000 levels).
 * `document` is the caller's copy and is mutated; the result is the patched document.
 */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  const operations = decodeOperations(patch);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      "RequestEntityTooLarge",
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  let root = document;
  for (const operation of operations) root = applyOperation(root, operation);
  return root;
}

/** The 422 kube answers for a JSON patch that does not apply: its generic text, empty details. */
export function jsonPatchRejected(): ApiError {
  return new ApiError(422, "Invalid", "the server rejected our request due to an error in our request", { details: {} });
}

/** Go's name for a JSON value's type in `json: cannot unmarshal <type> into …`. */
export function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

type Operation = Readonly<Record<string, unknown>>;

function decodeOperations(patch: unknown): readonly Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type jsonpatch.Patch`);
  for (const item of patch) {
    if (item !== null && !isPlainObject(item)) throw badRequest(`json: cannot unmarshal ${goJsonType(item)} into Go value of type jsonpatch.Operation`);
  }
  return patch.map((item: unknown) => (isPlainObject(item) ? item : {}));
}

class PatchFailed extends Error {}

function fail(): never {
  throw new PatchFailed();
}

function stringField(operation: Operation, name: string): string {
  const value = operation[name];
  return typeof value === "string" ? value : fail();
}

/** The operation's value; an absent one is null, as the library reads it. */
function operationValue(operation: Operation): unknown {
  return operation["value"] ?? null;
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return Array.isArray(value) || isPlainObject(value);
}

function decodeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Go's strconv.Atoi: an optionally signed decimal integer in range, or undefined. */
function atoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** An existing index of `list` named by `token` (negative counts from the end), or a failure. */
function existingIndex(list: readonly unknown[], token: string): number {
  let index = atoi(token) ?? fail();
  if (index < 0) {
    if (index < -list.length) fail();
    index += list.length;
  }
  if (index >= list.length) fail();
  return index;
}

/** The value under a key; undefined where the library finds nothing (a missing key or a null). */
function get(container: Container, key: string): unknown {
  if (Array.isArray(container)) return container[existingIndex(container, key)] ?? undefined;
  const value = Object.hasOwn(container, key) ? container[key] : undefined;
  return value === null ? undefined : value;
}

/** Sets an own key (`__proto__` too, as JSON.parse makes it, never the object's prototype). */
function setKey(container: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
}

function add(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  if (key === "-") {
    container.push(value);
    return;
  }
  let index = atoi(key) ?? fail();
  const size = container.length + 1;
  if (index >= size) fail();
  if (index < 0) {
    if (index < -size) fail();
    index += size;
  }
  container.splice(index, 0, value);
}

function remove(container: Container, key: string): void {
  if (Array.isArray(container)) container.splice(existingIndex(container, key), 1);
  else if (Object.hasOwn(container, key)) delete container[key];
  else fail();
}

/** The container the path's last token is looked up in, and that token (decoded). */
function locate(root: unknown, path: string): { readonly container: Container; readonly key: string } {
  const tokens = path.split("/");
  if (tokens.length < 2 || !isContainer(root)) fail();
  let container: Container = root;
  for (const token of tokens.slice(1, -1)) {
    const next = get(container, decodeToken(token));
    if (!isContainer(next)) fail();
    container = next;
  }
  return { container, key: decodeToken(tokens[tokens.length - 1] as string) };
}

function applyOperation(root: unknown, operation: Operation): unknown {
  const kind = typeof operation["op"] === "string" ? operation["op"] : "unknown";
  try {
    switch (kind) {
      case "add": {
        const { container, key } = locate(root, stringField(operation, "path"));
        add(container, key, operationValue(operation));
        return root;
      }
      case "remove": {
        const { container, key } = locate(root, stringField(operation, "path"));
        remove(container, key);
        return root;
      }
      case "replace": {
        const path = stringField(operation, "path");
        if (path === "") return isContainer(operation["value"]) ? operation["value"] : fail();
        const { container, key } = locate(root, path);
        // A missing object key is no failure to the library: the replace adds it.
        if (Array.isArray(container)) container[existingIndex(container, key)] = operationValue(operation);
        else setKey(container, key, operationValue(operation));
        return root;
      }
      case "move": {
        const from = locate(root, stringField(operation, "from"));
        const value = get(from.container, from.key);
        remove(from.container, from.key);
        const to = locate(root, stringField(operation, "path"));
        add(to.container, to.key, value ?? null);
        return root;
      }
      case "copy": {
        const from = locate(root, stringField(operation, "from"));
        const value = get(from.container, from.key);
        const to = locate(root, stringField(operation, "path"));
        add(to.container, to.key, value === undefined ? null : cloneJson(value));
        return root;
      }
      case "test": {
        const path = stringField(operation, "path");
        const expected = operationValue(operation);
        if (path === "") return equalJson(root, expected) ? root : fail();
        const { container, key } = locate(root, path);
        const actual = get(container, key);
        if (actual === undefined ? expected === null : equalJson(actual, expected)) return root;
        return fail();
      }
      default:
        return fail();
    }
  } catch (error) {
    if (error instanceof PatchFailed) throw jsonPatchRejected();
    throw error;
  }
}
