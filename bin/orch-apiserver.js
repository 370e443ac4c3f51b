#!/usr/bin/env node
// Launcher: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { main } from "../dist/src/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`orch-apiserver: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
