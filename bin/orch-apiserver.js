#!/usr/bin/env node
// Launcher: runs the compiled CLI (built by `npm install` through the `prepare` script). It prefers
// the one-file bundle (dist/bundle, scripts/bundle.mjs: a faster start) when the bundle is at least
// as new as tsc's output, so a bare `tsc` after a bundle falls back to the fresh per-module files.
import { statSync } from "node:fs";

const modified = (relative) => statSync(new URL(relative, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const bundle = modified("../dist/bundle/main.cjs");
const entry = bundle >= 0 && bundle >= modified("../dist/src/cli/main.js") ? "../dist/bundle/load.mjs" : "../dist/src/cli/main.js";
const { main } = await import(entry);

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`orch-apiserver: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
