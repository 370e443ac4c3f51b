import { parse as parseYaml } from "yaml";
import { ApiError, badRequest } from "../api/errors.js";
import { parseMediaType } from "./media-type.js";

/** Body formats the server reads. Patch types are listed separately by the patch handler. */
export type BodyFormat = "json" | "yaml" | "json-patch" | "merge-patch" | "strategic-merge-patch" | "apply-patch" | "protobuf";

const FORMATS: Readonly<Record<string, BodyFormat>> = {
  "application/json": "json",
  "application/yaml": "yaml",
  "application/x-yaml": "yaml",
  "application/json-patch+json": "json-patch",
  "application/merge-patch+json": "merge-patch",
  "application/strategic-merge-patch+json": "strategic-merge-patch",
  "application/apply-patch+yaml": "apply-patch",
};

/**
 * Maps Content-Type to a format; unknown or missing types are 415 (missing defaults to JSON).
 * `protobufTypes` are the media types read as protobuf, when `allowed` has it (built-in kinds).
 */
export function bodyFormat(contentType: string | undefined, allowed: readonly BodyFormat[], protobufTypes: readonly string[] = []): BodyFormat {
  const type = contentType === undefined || contentType === "" ? "application/json" : parseMediaType(contentType).type;
  const format = protobufTypes.includes(type) ? "protobuf" : FORMATS[type];
  if (format === undefined || !allowed.includes(format)) {
    const names = [
      ...Object.entries(FORMATS)
        .filter(([, value]) => allowed.includes(value))
        .map(([name]) => `"${name}"`),
      ...(allowed.includes("protobuf") ? protobufTypes.slice(0, 1).map((name) => `"${name}"`) : []),
    ];
    throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${names.join(", ")}`);
  }
  return format;
}

/** Parses JSON (or YAML for YAML formats) into an unknown value; malformed input is 400. */
export function decodeBody(bytes: Buffer, format: BodyFormat): unknown {
  if (format === "protobuf") throw new TypeError("protobuf bodies are decoded by the protobuf codec");
  const text = bytes.toString("utf8");
  if (format === "yaml" || format === "apply-patch") {
    // JSON is YAML; clients (kubectl) send apply bodies as JSON, which JSON.parse reads far faster.
    if (/^\s*\{/.test(text)) {
      try {
        return JSON.parse(text);
      } catch {
        // Not JSON after all (a YAML flow mapping): the YAML parser decides.
      }
    }
    try {
      return parseYaml(text, { maxAliasCount: 100 });
    } catch (error) {
      throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding request body: ${error instanceof Error ? error.message : String(error)}`);
  }
}
