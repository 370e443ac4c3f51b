import { nestingDepth } from "./decode.js";
import { yamlText } from "./yaml-parse.js";
import { stringifyJson } from "../util/deep-json.js";

/**
 * Values nested deeper than this are rendered in two parts (see `renderYaml`): the `yaml` library's
 * renderer recurses per level, and its flow style re-indents every level (quadratic output).
 */
const BLOCK_STYLE_LEVELS = 100;

/**
 * A response value as YAML (YAML 1.1 quoting, as kube's encoder writes it), at every depth. A value
 * nested deeper than BLOCK_STYLE_LEVELS is written in block style down to that depth, and each
 * collection below it as one line of JSON, which is a YAML flow collection: linear in size (kube's
 * encoder would indent all 10,000 levels of a deep custom resource, some 100 MB of spaces).
 */
export function renderYaml(value: unknown): string {
  if (nestingDepth(value, BLOCK_STYLE_LEVELS) <= BLOCK_STYLE_LEVELS) return yamlText(value);
  const subtrees: string[] = [];
  // A plain scalar the renderer leaves unquoted, unlikely in data; each is swapped for its subtree's JSON.
  const marker = `orch-deep-subtree-${Math.random().toString(36).slice(2)}-`;
  const shallow = cutBelow(value, BLOCK_STYLE_LEVELS, (subtree) => `${marker}${subtrees.push(stringifyJson(subtree)) - 1}`);
  return yamlText(shallow).replace(new RegExp(`${marker}(\\d+)`, "g"), (_match, index: string) => subtrees[Number(index)] ?? "null");
}

/** A copy of `value` down to `levels` levels, each collection below replaced by `stand(subtree)`. Recurses at most `levels` deep. */
function cutBelow(value: unknown, levels: number, stand: (subtree: unknown) => string): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (levels === 0) return stand(value);
  if (Array.isArray(value)) return value.map((item) => cutBelow(item, levels - 1, stand));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = cutBelow(item, levels - 1, stand);
  return out;
}
