import fastJsonPatch from "fast-json-patch";
import { ApiError, badRequest } from "../../api/errors.js";
import type { FieldType } from "../../api/schema/field-type.js";
import type { BodyFormat } from "../../codec/decode.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

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
 * Applies a decoded patch document of the given format to the current object (not mutated);
 * strategic merge patches merge lists as the kind's `schema` says.
 */
export function applyPatch(format: BodyFormat, current: unknown, patch: unknown, schema?: FieldType): unknown {
  switch (format) {
    case "merge-patch":
      return applyMergePatch(current, patch);
    case "strategic-merge-patch":
      return applyStrategicMergePatch(current, patch, schema);
    case "json-patch": {
      if (!isOperationList(patch)) throw badRequest("json patch must be an array of operations with op and path");
      try {
        const result = fastJsonPatch.applyPatch(structuredClone(current), patch, true, false);
        return result.newDocument;
      } catch (error) {
        const message = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
        throw new ApiError(422, "Invalid", `the server rejected our request due to an error in our request: ${message}`);
      }
    }
    default:
      throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format`);
  }
}
