// Rewrites the generated kinds table of docs/api-coverage.md from the built catalogue (run after `tsc`).
import { readFileSync, writeFileSync } from "node:fs";
import { kindCoverageTable, withCoverageTable } from "../dist/src/testing/coverage-table.js";

const path = new URL("../docs/api-coverage.md", import.meta.url);
writeFileSync(path, withCoverageTable(readFileSync(path, "utf8"), kindCoverageTable()));
