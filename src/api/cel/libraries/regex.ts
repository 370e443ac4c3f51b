/**
 * Regular expressions in CEL as kube evaluates them, with RE2 (the `re2js` port of Go's engine):
 * CEL's `matches` (member and global) and kube's regex library, `s.find(re)` (the first match or
 * ""), `s.findAll(re)` and `s.findAll(re, n)` (at most n matches; n < 0 means all). JavaScript's
 * engine refuses RE2 syntax real rules use — Gateway API's `(?i)^(HTTP|TCP|UDP)$`, `\pL`, `\z`,
 * `[[:alpha:]]` — and accepts what RE2 refuses (back-references, look-around). Patterns are
 * compiled once and kept; a bad one fails the evaluation with RE2's own message.
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { RE2JS } from "re2js";

const CACHE = new Map<string, RE2JS>();
const CACHE_LIMIT = 1024;

/**
 * cel-js declares `string.matches(string)` itself, with JavaScript's engine, and an overload cannot
 * be replaced: `useRe2Matches` renames member `matches` calls in a checked expression to this one.
 */
export const MEMBER_MATCHES = "matchesRe2";

/** The compiled form of `pattern`; throws a CEL error (RE2's text) for a pattern RE2 refuses. */
export function compileRegex(pattern: string): RE2JS {
  const cached = CACHE.get(pattern);
  if (cached !== undefined) return cached;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new EvaluationError(error instanceof Error ? error.message : String(error));
  }
  if (CACHE.size >= CACHE_LIMIT) CACHE.clear();
  CACHE.set(pattern, compiled);
  return compiled;
}

function matches(text: string, pattern: string): boolean {
  return compileRegex(pattern).matcher(text).find();
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const out: string[] = [];
  const matcher = compileRegex(pattern).matcher(text);
  while (matcher.find()) {
    out.push(matcher.group() ?? "");
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

/**
 * Points every member `matches` call of a checked expression at the RE2 implementation. The caller
 * checks the expression again afterwards, so each renamed call binds its handler; types and messages
 * came from the first check, under the name the rule's author wrote.
 */
export function useRe2Matches(node: ASTNode): boolean {
  let renamed = false;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== "object" || !("op" in value)) return;
    const ast = value as ASTNode;
    const args = ast.args as unknown;
    if (ast.op === "rcall" && Array.isArray(args) && args[0] === "matches") {
      args[0] = MEMBER_MATCHES;
      renamed = true;
    }
    visit(args);
  };
  visit(node);
  return renamed;
}

/** Registers `find`, `findAll`, the global `matches(string, string)` and the renamed member `matches`. */
export function registerRegexLibrary(env: Environment): void {
  env
    .registerFunction("matches(string, string): bool", matches)
    .registerFunction(`string.${MEMBER_MATCHES}(string): bool`, matches)
    .registerFunction("string.find(string): string", (text: string, pattern: string) => findAll(text, pattern, 1n)[0] ?? "")
    .registerFunction("string.findAll(string): list<string>", (text: string, pattern: string) => findAll(text, pattern, -1n))
    .registerFunction("string.findAll(string, int): list<string>", findAll);
}
