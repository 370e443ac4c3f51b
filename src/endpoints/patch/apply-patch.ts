import { ApiError, badRequest } from "../../api/errors.js";
import type { FieldType } from "../../api/schema/field-type.js";
import type { BodyFormat } from "../../codec/decode.js";
import { applyJsonPatch, goJsonType } from "./json-patch.js";
import { isPlainObject } from "../../api/object.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { cloneJson, isStackOverflow } from "../../util/deep-json.js";

/**
 * Applies a decoded patch document of the given format to the current object (not mutated);
 * strategic merge patches merge lists as the kind's `schema` says.
 */
export function applyPatch(format: BodyFormat, current: unknown, patch: unknown, schema?: FieldType): unknown {
  switch (format) {
    case "merge-patch":
      // kube decodes a merge patch into a map first (field validation Warn, its default, and Strict).
      if (patch !== null && !isPlainObject(patch))
        throw badRequest(`error decoding patch: json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
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
    case "json-patch":
      return applyJsonPatch(cloneJson(current), patch);
    default:
      throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format`);
  }
}
