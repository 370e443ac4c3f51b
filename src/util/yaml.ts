import type * as YamlLibrary from "yaml";
import { lazyRequire } from "./lazy-require.js";

/**
 * The `yaml` package, loaded at its first use: YAML bodies, `Accept: application/yaml` and the
 * configuration files of optional flags are rare, and the package is ~180 KB of code that a
 * default server would otherwise compile before it is ready (issue #21: start-up).
 */
export const yaml: () => typeof YamlLibrary = lazyRequire<typeof YamlLibrary>("yaml");
