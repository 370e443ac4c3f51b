import { ApiError, badRequest } from "../api/errors.js";
import { decodeBody, type BodyFormat } from "../codec/decode.js";
import { duplicateJsonFields, parseYamlWithDuplicates } from "../codec/duplicate-fields.js";
import type { ProtobufCodec } from "../codec/protobuf/codec.js";
import type { FieldValidation } from "../registry/index.js";
import type { RequestContext } from "../request/context.js";
import type { FieldValidationMode } from "../request/query/index.js";

/**
 * Decodes a request body as `decodeBody` does, and when the mode is not Ignore also finds the
 * fields it sets twice (JSON text is scanned; YAML is parsed keeping the last value, as JSON
 * decoding does). Protobuf bodies go through the codec. Returns the request's FieldValidation for the store.
 */
export function decodeWithFieldValidation(
  context: RequestContext,
  bytes: Buffer,
  format: BodyFormat,
  mode: FieldValidationMode,
  protobuf?: ProtobufCodec,
): { readonly value: unknown; readonly fieldValidation: FieldValidation } {
  const warn = (message: string): void => {
    context.warnings.push(message);
  };
  if (format === "protobuf") {
    // A message cannot set a field twice in a way JSON would notice: no duplicates to report.
    if (protobuf === undefined) throw new TypeError("a protobuf body needs the protobuf codec");
    return { value: protobuf.decode(bytes), fieldValidation: { mode, duplicates: [], warn } };
  }
  const text = bytes.toString("utf8");
  const yaml = format === "yaml" || format === "apply-patch";
  if (yaml && !/^\s*[[{]/.test(text)) {
    let parsed: { readonly value: unknown; readonly duplicates: string[] };
    try {
      parsed = parseYamlWithDuplicates(text);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { value: parsed.value, fieldValidation: { mode, duplicates: mode === "Ignore" ? [] : parsed.duplicates, warn } };
  }
  const value = decodeBody(bytes, format);
  const duplicates = mode === "Ignore" ? [] : duplicateJsonFields(text);
  return { value, fieldValidation: { mode, duplicates, warn } };
}
