import { yaml } from "../util/yaml.js";
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

/**
 * The deepest nesting a decoded body may have. kube's JSON conversion stops at 10,000 levels; here
 * the pipeline's deep copies (structuredClone, native and recursive) overflow Node's stack near
 * 2,000, so the limit is 1,000: far above real objects (CRD schemas nest a few dozen levels).
 */
export const MAX_BODY_DEPTH = 10_000;

/**
 * The most a YAML body may nest, as `yamlNestingBound` estimates it (an overestimate: block
 * sequences count twice). The \`yaml\` parser recurses per level and runs out of Node's stack near
 * 785 levels of flow collections; past its stack it may abort the whole process (V8 fails to
 * compile a regular expression with no stack left: "RegExpCompiler Allocation failed"), so YAML is
 * bounded well inside what it can parse. kube's YAML decoder stops at 10,000 levels.
 */
export const MAX_YAML_NESTING = 500;

/** Refuses (400) a YAML text that may nest deeper than `MAX_YAML_NESTING`: call before parsing it. */
export function refuseDeepYaml(text: string): void {
  if (yamlNestingBound(text) > MAX_YAML_NESTING) throw badRequest(`error decoding YAML: exceeded max depth of ${MAX_YAML_NESTING}`);
}

/** Refuses (400) a decoded body nested deeper than `MAX_BODY_DEPTH` (aliases in YAML can deepen a parsed document). */
export function refuseDeepValue(value: unknown): unknown {
  if (nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw badRequest(`error decoding request body: exceeded max depth of ${MAX_BODY_DEPTH}`);
  return value;
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
  return refuseDeepValue(parseBody(bytes, format));
}

function parseBody(bytes: Buffer, format: BodyFormat): unknown {
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
    refuseDeepYaml(text);
    try {
      return yaml().parse(text, { maxAliasCount: 100 });
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
