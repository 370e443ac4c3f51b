import fastJsonPatch from "fast-json-patch";
import { ApiError, badRequest } from "../../api/errors.js";
import type { FieldType } from "../../api/schema/field-type.js";
import type { BodyFormat } from "../../codec/decode.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { cloneJson, equalJson, isStackOverflow } from "../../util/deep-json.js";

type PatchOperation = fastJsonPatch.Operation;

function isOperationList(value: unknown): value is PatchOperation[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        typeof item === "object" &&
        item !== null &&
        typeof (item as Record<string, unknown>)["op"] === "string" &&
        typeof (item as Record<string, unknown>)["path"] === "string",
    )
  );
}

/**
 * Checks an operation as fast-json-patch's validator does, but never walks its value: the library
 * looks for `undefined` inside it recursively, which a 10,000-level value overflows, and a decoded
 * body holds no `undefined` anyway.
 */
function validateOperation(operation: PatchOperation, index: number, document: unknown, existingPath: string): void {
  const shallow = "value" in operation && operation.value !== undefined ? { ...operation, value: null } : operation;
  // The validator reads the document only to know one is given (paths are checked against
  // `existingPath`), but its errors print it whole: an empty stand-in keeps them small and stack-safe.
  fastJsonPatch.validator(shallow, index, document === undefined ? undefined : STAND_IN_DOCUMENT, existingPath);
}

const STAND_IN_DOCUMENT = Object.freeze({});

/** The 422 kube answers for a JSON patch that cannot be applied. */
function patchRejected(message: string): ApiError {
  return new ApiError(422, "Invalid", `the server rejected our request due to an error in our request: ${message}`);
}

/** The value a JSON pointer names in `document`, or undefined when nothing is there. */
function valueAt(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  let current = document;
  for (const token of pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      current = current[Number(key)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, key)) current = (current as Record<string, unknown>)[key];
    else return undefined;
  }
  return current;
}

/**
 * RFC 6902 through fast-json-patch, one operation at a time on `document` (the caller's copy,
 * mutated). `test`, `copy` and `move` are done here, with the library's checks and messages: it
 * compares and copies values (and checks `from` on a copy of the whole document) with recursive
 * walks, which a value nested 10,000 levels overflows; these use the stack-safe ones.
 */
function applyJsonPatch(document: unknown, patch: readonly PatchOperation[]): unknown {
  let current = document;
  const apply = (operation: PatchOperation, index: number): void => {
    current = fastJsonPatch.applyOperation(current, operation, validateOperation, true, true, index).newDocument;
  };
  patch.forEach((operation, index) => {
    switch (operation.op) {
      case "test": {
        validateOperation(operation, index, undefined, operation.path);
        if (!equalJson(valueAt(current, operation.path), operation.value)) throw patchRejected("Test operation failed");
        return;
      }
      case "copy":
      case "move": {
        validateOperation(operation, index, undefined, operation.path);
        const value = valueAt(current, operation.from);
        if (value === undefined) throw patchRejected("Cannot perform the operation from a path that does not exist");
        if (operation.op === "move") apply({ op: "remove", path: operation.from }, index);
        apply({ op: "add", path: operation.path, value: operation.op === "copy" ? cloneJson(value) : value }, index);
        return;
      }
      default:
        apply(operation, index);
    }
  });
  return current;
}

/**
 * Applies a decoded patch document of the given format to the current object (not mutated);
 * strategic merge patches merge lists as the kind's `schema` says.
 */
export function applyPatch(format: BodyFormat, current: unknown, patch: unknown, schema?: FieldType): unknown {
  switch (format) {
    case "merge-patch":
      return applyMergePatch(current, patch);
    case "strategic-merge-patch":
      try {
        return applyStrategicMergePatch(current, patch, schema);
      } catch (error) {
        // TODO(#20): strategic merge recurses per level; a patch or object nested past Node's stack
        // (bodies may nest 10,000 levels) is refused rather than answered 500.
        if (!isStackOverflow(error)) throw error;
        throw badRequest("strategic merge patch: the patch or the object nests too deeply to merge");
      }
    case "json-patch": {
      if (!isOperationList(patch)) throw badRequest("json patch must be an array of operations with op and path");
      try {
        return applyJsonPatch(cloneJson(current), patch);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        // The library prints the whole document into its errors; one nested past the stack leaves only a RangeError.
        const message = isStackOverflow(error)
          ? "the operation cannot be applied to this document"
          : error instanceof Error
            ? (error.message.split("\n")[0] ?? error.message)
            : String(error);
        throw patchRejected(message);
      }
    }
    default:
      throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format`);
  }
}
