import { nestingDepth } from "./decode.js";
import { renderYamlOffThread } from "./yaml-deep.js";
import { yamlText } from "./yaml-parse.js";
import { stringifyJson } from "../util/deep-json.js";

/** Values nested deeper than this are rendered on the YAML worker: the renderer recurses per level (see `yaml-deep.ts`). */
const MAIN_THREAD_YAML_DEPTH = 300;

/** A response value as YAML (YAML 1.1 quoting, as kube's encoder writes it), at any depth. */
export function renderYaml(value: unknown): string {
  if (nestingDepth(value, MAIN_THREAD_YAML_DEPTH) <= MAIN_THREAD_YAML_DEPTH) return yamlText(value);
  return renderYamlOffThread(stringifyJson(value));
}
