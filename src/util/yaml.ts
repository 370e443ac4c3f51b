import type * as YamlLibrary from "yaml";
import { lazyRequire } from "./lazy-require.js";

/**
 * The `yaml` package, loaded at its first use: YAML bodies, `Accept: application/yaml` and the
 * configuration files of optional flags are rare, and the package is ~180 KB of code that a
 * default server would otherwise compile before it is ready (issue #21: start-up).
 */
export const yaml: () => typeof YamlLibrary = lazyRequire<typeof YamlLibrary>("yaml");

/**
 * A configuration file's document as kube's decoder (Go's sigs yaml package) reads one: the first YAML
 * document, any after it ignored — so a file ending in `---`, as templating tools write them, is
 * read. An empty file is null. Throws the `yaml` package's error for a malformed first document.
 */
export function parseFirstDocument(text: string): unknown {
  const [first] = yaml().parseAllDocuments(text);
  if (first === undefined) return null;
  const [error] = first.errors;
  if (error !== undefined) throw error;
  return first.toJS();
}
