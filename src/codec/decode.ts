import { ApiError, badRequest } from "../api/errors.js";
import { parseMediaType } from "./media-type.js";
import { parseYamlOffThread } from "./yaml-deep.js";
import { parseYamlText, type ParsedYaml } from "./yaml-parse.js";

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
        // kube's words: the types joined by ", " (no quotes), the x-yaml alias not named.
        .filter(([name, value]) => allowed.includes(value) && name !== "application/x-yaml")
        .map(([name]) => name),
      ...(allowed.includes("protobuf") ? protobufTypes.slice(0, 1) : []),
    ];
    throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: ${names.join(", ")}`);
  }
  return format;
}

/**
 * The deepest nesting a decoded body may have: kube's JSON decoder (Go's scanner) and YAML decoder
 * stop at 10,000 levels, and so does this one. Everything after decoding is stack-safe to this
 * depth with Node's default stack (see `util/deep-json.ts`, `apply/typed.ts`).
 */
export const MAX_BODY_DEPTH = 10_000;

/**
 * YAML whose `yamlNestingBound` is at most this is parsed on the main thread; the \`yaml\` parser
 * recurses per level and runs out of Node's default stack near 785 levels of flow collections, so
 * deeper YAML goes to a worker thread with a large stack (`yaml-deep.ts`).
 */
export const MAIN_THREAD_YAML_BOUND = 500;

/**
 * YAML whose bound passes this is refused before parsing. The bound overshoots by up to three
 * times (a flow mapping per level counts its bracket and, doubled, its `: `), so a document 10,000
 * levels deep stays inside it; refusing early also caps the parser's work, which grows faster than
 * the depth (the library's parser costs about 0.3 s at 10,000 levels).
 */
export const MAX_YAML_BOUND = 3 * MAX_BODY_DEPTH + 100;

function tooDeepYaml(): ApiError {
  return badRequest(`error decoding YAML: exceeded max depth of ${MAX_BODY_DEPTH}`);
}

/**
 * Parses a YAML body (see `parseYamlText`) within kube's nesting limit: shallow documents on this
 * thread, deep ones on the YAML worker; a document nested past MAX_BODY_DEPTH (aliases included) is
 * 400. The parser's own errors are thrown as they are, for the caller to word.
 */
export function parseYamlBody(text: string, withDuplicates: boolean): ParsedYaml {
  const bound = yamlNestingBound(text);
  if (bound > MAX_YAML_BOUND) throw tooDeepYaml();
  const parsed = bound <= MAIN_THREAD_YAML_BOUND ? parseYamlText(text, withDuplicates) : parseYamlOffThread(text, withDuplicates);
  if (nestingDepth(parsed.value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeepYaml();
  return parsed;
}

/**
 * Refuses (400) a decoded JSON body nested deeper than MAX_BODY_DEPTH, with the words of Go's JSON
 * scanner ("invalid character '{' exceeded max depth", naming the first bracket too deep).
 */
export function refuseDeepValue(value: unknown, what = "error decoding request body"): unknown {
  const opener = openerPastDepth(value, MAX_BODY_DEPTH);
  if (opener !== undefined) throw badRequest(`${what}: invalid character '${opener}' exceeded max depth`);
  return value;
}

/** The bracket (`{` or `[`) of the first container nested deeper than `limit`, in document order; undefined when none is. */
function openerPastDepth(value: unknown, limit: number): string | undefined {
  if (nestingDepth(value, limit) <= limit) return undefined;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    if (depth > limit) return Array.isArray(current) ? "[" : "{";
    const children = Array.isArray(current) ? current : Object.values(current);
    for (let index = children.length - 1; index >= 0; index--) pending.push([children[index], depth + 1]);
  }
  return undefined;
}

/**
 * How deep `value` nests, counted without recursion (a body nested deeper than the stack would
 * overflow every recursive walk after it); stops counting once past `limit`.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current))
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * An upper bound on how deep a YAML text nests, without parsing it: a level needs more indentation,
 * an inline indicator (`- `, `: `, `? `) on its line, or an open flow bracket; a block sequence
 * may sit at its parent key's indentation, so line depths count twice. Brackets inside strings
 * count too: the bound overshoots (at most about twofold for plain YAML), never undershoots.
 */
export function yamlNestingBound(text: string): number {
  let bound = 0;
  let flow = 0;
  let deepestFlow = 0;
  for (const line of text.split("\n")) {
    let indicators = 0;
    for (let index = 0; index < line.length; index++) {
      const char = line[index];
      if (char === "[" || char === "{") deepestFlow = Math.max(deepestFlow, ++flow);
      else if (char === "]" || char === "}") flow = Math.max(0, flow - 1);
      else if ((char === "-" || char === ":" || char === "?") && (index + 1 === line.length || line[index + 1] === " ")) indicators++;
    }
    const indent = line.length - line.trimStart().length;
    bound = Math.max(bound, indent + indicators);
  }
  return 2 * bound + 1 + deepestFlow;
}

/** Parses JSON (or YAML for YAML formats) into an unknown value; malformed or too deeply nested input is 400. */
export function decodeBody(bytes: Buffer, format: BodyFormat): unknown {
  if (format === "protobuf") throw new TypeError("protobuf bodies are decoded by the protobuf codec");
  const text = bytes.toString("utf8");
  if (format === "yaml" || format === "apply-patch") {
    // JSON is YAML; clients (kubectl) send apply bodies as JSON, which JSON.parse reads far faster.
    if (/^\s*\{/.test(text)) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // Not JSON after all (a YAML flow mapping): the YAML parser decides.
      }
      if (value !== undefined) {
        if (nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw tooDeepYaml();
        return value;
      }
    }
    try {
      return parseYamlBody(text, false).value;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding request body: ${error instanceof Error ? error.message : String(error)}`);
  }
  return refuseDeepValue(value);
}
