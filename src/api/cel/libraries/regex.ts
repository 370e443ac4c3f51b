/**
 * kube's regex library: `s.find(re)` (the first match or ""), `s.findAll(re)` and
 * `s.findAll(re, n)` (at most n matches; n < 0 means all). Patterns are compiled once and kept.
 * JavaScript's engine stands in for RE2: patterns RE2 rejects (back-references, look-around) are
 * refused here too so a rule behaves the same on both servers.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

const CACHE = new Map<string, RegExp>();
const CACHE_LIMIT = 1024;
const NOT_RE2 = /\\[1-9]|\(\?[=!<]|\\k</;

/** The compiled global form of `pattern`; throws a CEL error for patterns RE2 would not accept. */
export function compileRegex(pattern: string): RegExp {
  const cached = CACHE.get(pattern);
  if (cached !== undefined) return cached;
  if (NOT_RE2.test(pattern)) throw new EvaluationError(`invalid regex: ${JSON.stringify(pattern)}`);
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, "gu");
  } catch (error) {
    throw new EvaluationError(`invalid regex: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (CACHE.size >= CACHE_LIMIT) CACHE.clear();
  CACHE.set(pattern, compiled);
  return compiled;
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const out: string[] = [];
  for (const match of text.matchAll(compileRegex(pattern))) {
    out.push(match[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

/**
 * CEL's standard `matches` in its global form, `matches(text, pattern)`: cel-go declares both it and
 * the member form (`text.matches(pattern)`), cel-js only the member. Same engine and errors as
 * cel-js's member form, so the two spellings agree.
 */
function matchesGlobal(text: string, pattern: string): boolean {
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern);
  } catch {
    throw new EvaluationError(`Invalid regular expression: ${pattern}`);
  }
  return compiled.test(text);
}

/** Registers `find`, `findAll` and the global `matches(string, string)` on `env`. */
export function registerRegexLibrary(env: Environment): void {
  env
    .registerFunction("matches(string, string): bool", matchesGlobal)
    .registerFunction("string.find(string): string", (text: string, pattern: string) => findAll(text, pattern, 1n)[0] ?? "")
    .registerFunction("string.findAll(string): list<string>", (text: string, pattern: string) => findAll(text, pattern, -1n))
    .registerFunction("string.findAll(string, int): list<string>", findAll);
}
